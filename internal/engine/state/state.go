// Package state saves and loads a partition's storage state — its
// cookies and the local and session storage of its open origins — in the
// shape of Playwright's storage-state file, so that people can move a
// signed-in session between the two: loading one into a fresh temp:
// partition starts a test as a signed-in user.
//
// Cookies are the partition's (its browser context's cookie jar), every
// one of them. Storage is read from the documents open in the partition,
// frames included: an origin no tab shows has nothing readable without
// loading it. Loading writes local storage into an open document of the
// origin, or else into a blank document of the origin that loupe serves
// itself in a tab of its own (the request never reaches the site), closed
// after. Session storage belongs to a tab: it is loaded only into open
// tabs of its origin, and the result says how many origins had none.
package state

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/partition"
)

// State is a storage-state file.
type State struct {
	Cookies []Cookie `json:"cookies"`
	Origins []Origin `json:"origins"`
}

// Cookie is one cookie, as Playwright writes it: Expires in seconds since
// the epoch, -1 for a session cookie; SameSite Strict, Lax or None.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"`
}

// Origin is one origin's storage. SessionStorage is loupe's addition
// (Playwright's file has none; it ignores the field).
type Origin struct {
	Origin         string      `json:"origin"`
	LocalStorage   []NameValue `json:"localStorage"`
	SessionStorage []NameValue `json:"sessionStorage,omitempty"`
}

// NameValue is one storage entry.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// documents are the worlds of every document open in t's partition, top
// documents first, each with its frame's origin.
func documents(ctx context.Context, b *engine.Browser, t *engine.Surface) []*world.World {
	var out []*world.World
	for _, p := range b.Pages() {
		if p.BrowserContext() != t.BrowserContext() {
			continue
		}
		for level := []string{p.Root()}; len(level) > 0; {
			var next []string
			for _, f := range level {
				if w, err := engine.Exclusively(ctx, p, func() (*world.World, error) { return p.World(ctx, f) }); err == nil {
					out = append(out, w)
				}
				next = append(next, p.ChildFrames(f)...)
			}
			level = next
		}
	}
	return out
}

// stored is what the page agent reads of a document's storage.
type stored struct {
	Origin  string      `json:"origin"`
	Local   []NameValue `json:"local"`
	Session []NameValue `json:"session"`
}

// Save reads the storage state of t's partition.
func Save(ctx context.Context, b *engine.Browser, t *engine.Surface) (*State, error) {
	params := storage.GetCookiesParams{}
	if surface.PartitionOf(b, t) != partition.Persist {
		params.BrowserContextID = cdpproto.BrowserContextID(t.BrowserContext())
	}
	res, err := cdpproto.Call(ctx, b.BrowserSession(), storage.GetCookies, params)
	if err != nil {
		return nil, fmt.Errorf("reading the cookies: %w", err)
	}
	st := &State{Cookies: []Cookie{}, Origins: []Origin{}}
	for _, c := range res.Cookies {
		exp := c.Expires
		if c.Session {
			exp = -1
		}
		same := string(c.SameSite)
		if same == "" {
			same = "Lax"
		}
		st.Cookies = append(st.Cookies, Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: same})
	}
	seen := map[string]bool{}
	for _, w := range documents(ctx, b, t) {
		var s stored
		if err := w.Call(ctx, "storage", &s); err != nil || !webOrigin(s.Origin) || seen[s.Origin] {
			continue
		}
		seen[s.Origin] = true
		if len(s.Local)+len(s.Session) > 0 {
			st.Origins = append(st.Origins, Origin{Origin: s.Origin, LocalStorage: orEmpty(s.Local), SessionStorage: s.Session})
		}
	}
	slices.SortFunc(st.Origins, func(a, b Origin) int {
		if a.Origin < b.Origin {
			return -1
		}
		return 1
	})
	return st, nil
}

func orEmpty(l []NameValue) []NameValue {
	if l == nil {
		return []NameValue{}
	}
	return l
}

// webOrigin: an http or https origin (not an opaque one, "null").
func webOrigin(o string) bool {
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && (u.Path == "" || u.Path == "/")
}

// cookieParams are the cookies to set, in the protocol's terms.
func cookieParams(cs []Cookie) []*network.CookieParam {
	out := make([]*network.CookieParam, 0, len(cs))
	for _, c := range cs {
		p := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly}
		if c.Expires > 0 {
			p.Expires = cdpproto.TimeSinceEpoch(c.Expires)
		}
		switch c.SameSite {
		case "Strict", "Lax", "None":
			p.SameSite = network.CookieSameSite(c.SameSite)
		}
		out = append(out, p)
	}
	return out
}
