package e2e

import (
	"context"
	"errors"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/chromium"
)

// bareNavigate does, with raw protocol calls on a launched browser, the
// least any tool must: attach to the page, navigate, wait for load, and run
// one command.
func bareNavigate(ctx context.Context, br *chromium.Browser, url string) error {
	bs := br.Conn.Browser()
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	if err := bs.Call(ctx, "Target.getTargets", nil, &targets); err != nil {
		return err
	}
	page := ""
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			page = t.TargetID
			break
		}
	}
	if page == "" {
		return errors.New("no page target")
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": page, "flatten": true}, &att); err != nil {
		return err
	}
	s := br.Conn.Session(att.SessionID)
	if s == nil {
		return errors.New("no session")
	}
	if err := s.Call(ctx, "Page.enable", nil, nil); err != nil {
		return err
	}
	loads, cancel := s.Listen("Page.loadEventFired")
	defer cancel()
	if err := s.Call(ctx, "Page.navigate", map[string]string{"url": url}, nil); err != nil {
		return err
	}
	select {
	case <-loads:
	case <-ctx.Done():
		return ctx.Err()
	}
	var r jsonv2.Value
	return s.Call(ctx, "Runtime.evaluate", map[string]string{"expression": "1"}, &r)
}
