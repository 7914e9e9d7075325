package handlers

import (
	"context"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cookies"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/restore"
)

func cookieHandlers() map[string]Handler {
	return map[string]Handler{
		"import-cookies": Checked(Browser(func(ctx context.Context, b *engine.Browser, in *ops.ImportCookiesIn) (*ops.ImportCookiesOut, error) {
			path := in.Profile // a Cookies database, by cookiesFile
			r, err := cookies.Read(ctx, path, cookies.LinuxKeys(ctx), time.Now())
			if err != nil {
				return nil, usage("%v", err)
			}
			params := make([]*network.CookieParam, 0, len(r.Cookies))
			for _, c := range r.Cookies {
				p := &network.CookieParam{Name: c.Name, Value: string(c.Value), Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly,
					SameSite: network.CookieSameSite(c.SameSite)}
				if !c.Expires.IsZero() {
					p.Expires = cdpproto.TimeSinceEpoch(float64(c.Expires.UnixMilli()) / 1000)
				}
				params = append(params, p)
			}
			if err := surface.SetCookies(ctx, b, params); err != nil {
				return nil, err
			}
			return &ops.ImportCookiesOut{From: path, Imported: len(params), SkippedExpired: r.Expired, SkippedAppBound: r.AppBound,
				SkippedUndecryptable: r.Undecryptable}, nil
		}), cookiesFile),
	}
}

// cookiesFile finds the Cookies database an import reads (the profile
// changed last when none is named) and names it in Profile. It looks at
// this machine's files, so it is the daemon's check, not the contract's.
func cookiesFile(in *ops.ImportCookiesIn) error {
	if in.Profile == "" {
		p, err := cookies.FindProfile()
		if err != nil {
			return usage("%v; name one with %s", err, apitype.Field("profile"))
		}
		in.Profile = p
		return nil
	}
	p, err := cookies.CookiesFile(in.Profile)
	if err != nil {
		return usage("%v", err)
	}
	in.Profile = p
	return nil
}

func viewportHandlers() map[string]Handler {
	return map[string]Handler{
		"viewport": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, in *ops.ViewportIn) (*ops.ViewportOut, error) {
			t, err := c.Tab(ctx)
			if err != nil {
				return nil, err
			}
			page, err := b.Surface(ctx, t.PageID())
			if err != nil {
				return nil, err
			}
			v := in.Viewport()
			if err := restore.SetViewport(ctx, b, page, v); err != nil {
				return nil, err
			}
			out := &ops.ViewportOut{SurfaceID: page.ID}
			if v != nil {
				out.Width, out.Height, out.Scale, out.Mobile = v.Width, v.Height, v.Scale, v.Mobile
			}
			return out, nil
		}),
	}
}
