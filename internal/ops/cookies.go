package ops

import (
	"context"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/loupe-dev/loupe/internal/cookies"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/wire"
)

// ImportCookiesIn names the profile to import from.
type ImportCookiesIn struct {
	Profile string `json:"profile,omitempty" flag:"profile" meta:"DIR" help:"a Chrome or Chromium profile DIR, or its Cookies database; default: the profile changed last"`
}

// Validate finds the Cookies database (the newest profile's when none is
// named) and names it in Profile.
func (in *ImportCookiesIn) Validate() error {
	p, err := cookiesPath(in.Profile)
	if err != nil {
		return err
	}
	in.Profile = p
	return nil
}

// ImportCookiesOut says what was imported and what was left out.
type ImportCookiesOut = wire.ImportCookiesOut

func cookieOps() []*Op {
	imp := define("import-cookies", "bring a person's signed-in state from their Chrome or Chromium profile: its cookies, decrypted, into the session's profile (never passwords)", Write, navTimeout,
		func(ctx context.Context, env Env, in *ImportCookiesIn) (*ImportCookiesOut, error) {
			path := in.Profile // a Cookies database, by Validate
			r, err := cookies.Read(ctx, path, cookies.LinuxKeys(ctx), time.Now())
			if err != nil {
				return nil, usage("%v", err)
			}
			b, err := env.Browser(ctx)
			if err != nil {
				return nil, err
			}
			params := make([]*network.CookieParam, 0, len(r.Cookies))
			for _, c := range r.Cookies {
				p := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly,
					SameSite: network.CookieSameSite(c.SameSite)}
				if !c.Expires.IsZero() {
					p.Expires = cdpproto.TimeSinceEpoch(float64(c.Expires.UnixMilli()) / 1000)
				}
				params = append(params, p)
			}
			if err := surface.SetCookies(ctx, b, params); err != nil {
				return nil, err
			}
			return &ImportCookiesOut{From: path, Imported: len(params), SkippedExpired: r.Expired, SkippedAppBound: r.AppBound,
				SkippedUndecryptable: r.Undecryptable}, nil
		}).as(ActControl).sessionWide().noMCP("a person brings their own signed-in state; an agent must not take it")
	return []*Op{imp}
}

func cookiesPath(profile string) (string, error) {
	if profile == "" {
		p, err := cookies.FindProfile()
		if err != nil {
			return "", usage("%v; name one with %s", err, fld("profile"))
		}
		return p, nil
	}
	p, err := cookies.CookiesFile(profile)
	if err != nil {
		return "", usage("%v", err)
	}
	return p, nil
}
