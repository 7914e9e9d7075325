package ops

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/internal/chromeprofile"
)

// AttachIn is the input of attach.
type AttachIn struct {
	CDP string `json:"cdp,omitempty" flag:"cdp" meta:"URL" help:"DevTools endpoint: http://host:port (from --remote-debugging-port) or a ws:// URL"`
	// Chrome attaches to the person's own running Chrome, found by the
	// DevToolsActivePort its profile has while remote debugging is on.
	Chrome  bool   `json:"chrome,omitempty" flag:"chrome" help:"attach to your own running Chrome (found by its profile's DevToolsActivePort); its tabs stay yours"`
	Channel string `json:"channel,omitempty" flag:"channel" meta:"CHANNEL" help:"with --chrome: stable (default), beta, canary or chromium"`
	Profile string `json:"profile,omitempty" flag:"profile" meta:"DIR" help:"with --chrome: the browser's profile (user data) directory"`
	// ElectronMain is the Electron main process's Node inspector; with it
	// loupe tells windows, WebContentsViews and webviews apart.
	ElectronMain string `json:"electron_main,omitempty" flag:"electron-main" meta:"URL" help:"Electron main process inspector (http://127.0.0.1:9229, from --inspect) to classify windows, views and webviews"`
	// Grid takes the browser from a Selenium Grid 4: a WebDriver session
	// for Chromium, driven over its se:cdp endpoint, deleted when the
	// session closes.
	Grid         string `json:"grid,omitempty" flag:"grid" meta:"URL" help:"take a browser from the Selenium Grid 4 at URL (http://host:4444); the session keeps taking its browsers there until it closes"`
	Capabilities string `json:"capabilities,omitempty" flag:"capabilities" meta:"JSON" help:"with --grid: WebDriver capabilities, a JSON object merged over loupe's Chromium (e.g. '{\"browserVersion\":\"156\"}')"`
}

// Validate checks exactly one way to find the browser is given.
func (in *AttachIn) Validate() error {
	ways := 0
	for _, given := range []bool{in.CDP != "", in.Chrome, in.Grid != ""} {
		if given {
			ways++
		}
	}
	switch {
	case ways == 0:
		return usage("missing %s (e.g. http://127.0.0.1:9222), %s or %s (e.g. http://127.0.0.1:4444)", fld("cdp"), fld("chrome"), fld("grid"))
	case ways > 1:
		return usage("give one of %s, %s and %s", fld("cdp"), fld("chrome"), fld("grid"))
	case in.Grid == "" && in.Capabilities != "":
		return usage("%s goes with %s", fld("capabilities"), fld("grid"))
	case in.Grid != "" && in.ElectronMain != "":
		return usage("%s goes with %s: a Grid gives Chromium, not an Electron app", fld("electron_main"), fld("cdp"))
	case in.Grid != "" && !gridURL(in.Grid):
		return usage("%s %q: want the Grid's http:// or https:// address, e.g. http://127.0.0.1:4444", fld("grid"), in.Grid)
	case in.Capabilities != "" && !capsObject(in.Capabilities):
		return usage("%s: not a JSON object of capabilities: %s", fld("capabilities"), in.Capabilities)
	case !in.Chrome && (in.Channel != "" || in.Profile != ""):
		return usage("%s and %s go with %s", fld("channel"), fld("profile"), fld("chrome"))
	case in.Channel != "" && !slices.Contains(chromeprofile.Channels, in.Channel):
		return usage("%s %q: want %s", fld("channel"), in.Channel, strings.Join(chromeprofile.Channels, ", "))
	}
	return nil
}

// gridURL reports whether s is a Grid's address: http or https, with a
// host (package grid checks the same).
func gridURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.Fragment == ""
}

// capsObject reports whether s is a JSON object.
func capsObject(s string) bool {
	var v map[string]any
	return json.Unmarshal([]byte(s), &v) == nil && v != nil
}

func sessionOps() []*Op {
	return []*Op{
		describe[NoIn, SessionOut]("close", "close the session and its browser", Write, launchTimeout).sessionWide().as(ActClose).noBrowser().mcp(Tool{Name: "browser_close", Select: "session", Value: true}),
		describe[AttachIn, SessionOut]("attach", "attach the session to a running browser or Electron app over CDP, or to a browser from a Selenium Grid", Write, launchTimeout).sessionWide().as(ActSession).noBrowser().noMCP("an MCP server attaches when it starts (loupe mcp --cdp URL or --grid URL); swapping the browser under a running agent would strand its refs"),
		describe[NoIn, DoctorOut]("doctor", "report the browser, its version, the transport and which features it supports", Read, launchTimeout).sessionWide().mcp(Tool{Name: "browser_doctor", Desc: "The browser, its version, the transport and which features this connection supports."}),
	}
}
