package state

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/storage"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/partition"
)

// Loaded says what Load wrote.
type Loaded struct {
	Cookies int `json:"cookies"`
	Origins int `json:"origins"` // origins whose local storage was written
	// NoTab counts the origins whose session storage was not loaded: no
	// tab of the partition shows them (session storage is a tab's).
	NoTab int `json:"no_tab,omitempty"`
}

// Load writes a storage state into t's partition: its cookies, and each
// origin's storage into the documents of that origin open there, or
// else (local storage) into a blank document of the origin in a tab of
// its own, which loupe answers itself and closes after.
func Load(ctx context.Context, b *engine.Browser, t *engine.Surface, st *State) (*Loaded, error) {
	out := &Loaded{}
	part := surface.PartitionOf(b, t)
	if len(st.Cookies) > 0 {
		params := storage.SetCookiesParams{Cookies: cookieParams(st.Cookies)}
		if part != partition.Persist {
			params.BrowserContextID = cdpproto.BrowserContextID(t.BrowserContext())
		}
		if _, err := cdpproto.Call(ctx, b.BrowserSession(), storage.SetCookies, params); err != nil {
			return nil, fmt.Errorf("writing the cookies: %w", err)
		}
		out.Cookies = len(st.Cookies)
	}
	open := map[string][]*world.World{}
	for _, w := range documents(ctx, b, t) {
		var s stored
		if err := w.Call(ctx, "storage", &s); err == nil && webOrigin(s.Origin) {
			open[s.Origin] = append(open[s.Origin], w)
		}
	}
	for _, o := range st.Origins {
		if !webOrigin(o.Origin) {
			return out, fmt.Errorf("origin %q: want http(s)://host[:port]", o.Origin)
		}
		if ws := open[o.Origin]; len(ws) > 0 {
			for _, w := range ws {
				if err := set(ctx, w, o.LocalStorage, o.SessionStorage); err != nil {
					return out, err
				}
			}
			out.Origins++
			continue
		}
		if len(o.SessionStorage) > 0 {
			out.NoTab++
		}
		if len(o.LocalStorage) == 0 {
			continue
		}
		if err := loadBlank(ctx, b, part, o); err != nil {
			return out, fmt.Errorf("local storage of %s: %w", o.Origin, err)
		}
		out.Origins++
	}
	return out, nil
}

func set(ctx context.Context, w *world.World, local, session []NameValue) error {
	var r struct {
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	}
	if err := w.Call(ctx, "setStorage", &r, orEmpty(local), orEmpty(session)); err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("writing storage: %s", r.Detail)
	}
	return nil
}

// blankPage is what loupe answers for the origin's document it loads to
// write local storage into: nothing, and no request reaches the site.
const blankPage = "<!doctype html><title>loading storage</title>"

// loadBlank writes an origin's local storage through a blank document of
// that origin in a tab of its own, answered by loupe (Fetch), and closes
// the tab.
func loadBlank(ctx context.Context, b *engine.Browser, partition string, o Origin) (err error) {
	tab, err := surface.NewTabIn(ctx, b, partition)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = surface.CloseTab(cctx, b, tab.ID)
	}()
	s := tab.Session()
	paused, cancel := s.Listen("Fetch.requestPaused")
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() { // answers every request of the tab until it closes
		for {
			select {
			case <-done:
				return
			case ev, ok := <-paused:
				if !ok {
					return
				}
				var e struct {
					RequestID string `json:"requestId"`
				}
				if jsonv2.Unmarshal(ev.Params, &e) != nil {
					continue
				}
				_ = s.Call(ctx, "Fetch.fulfillRequest", map[string]any{
					"requestId": e.RequestID, "responseCode": 200,
					"responseHeaders": []map[string]string{{"name": "Content-Type", "value": "text/html"}},
					"body":            base64.StdEncoding.EncodeToString([]byte(blankPage)),
				}, nil)
			}
		}
	}()
	if err := s.Call(ctx, "Fetch.enable", map[string]any{"patterns": []map[string]string{{"urlPattern": "*"}}}, nil); err != nil {
		return err
	}
	if _, err := nav.Navigate(ctx, tab, o.Origin+"/"); err != nil {
		return err
	}
	w, err := engine.Exclusively(ctx, tab, func() (*world.World, error) { return tab.World(ctx, tab.Root()) })
	if err != nil {
		return err
	}
	return set(ctx, w, o.LocalStorage, nil)
}
