package ops

import (
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
}

// Validate checks one way to find the browser is given.
func (in *AttachIn) Validate() error {
	switch {
	case in.CDP == "" && !in.Chrome:
		return usage("missing %s (e.g. http://127.0.0.1:9222) or %s", fld("cdp"), fld("chrome"))
	case in.CDP != "" && in.Chrome:
		return usage("give %s or %s, not both", fld("cdp"), fld("chrome"))
	case !in.Chrome && (in.Channel != "" || in.Profile != ""):
		return usage("%s and %s go with %s", fld("channel"), fld("profile"), fld("chrome"))
	case in.Channel != "" && !slices.Contains(chromeprofile.Channels, in.Channel):
		return usage("%s %q: want %s", fld("channel"), in.Channel, strings.Join(chromeprofile.Channels, ", "))
	}
	return nil
}

func sessionOps() []*Op {
	return []*Op{
		describe[NoIn, SessionOut]("close", "close the session and its browser", Write, launchTimeout).sessionWide().as(ActClose).noBrowser().mcp(Tool{Name: "browser_close", Select: "session", Value: true}),
		describe[AttachIn, SessionOut]("attach", "attach the session to a running browser or Electron app over CDP", Write, launchTimeout).sessionWide().as(ActSession).noBrowser().noMCP("an MCP server attaches when it starts (loupe mcp --cdp URL); swapping the browser under a running agent would strand its refs"),
		describe[NoIn, DoctorOut]("doctor", "report the browser, its version, the transport and which features it supports", Read, launchTimeout).sessionWide().mcp(Tool{Name: "browser_doctor", Desc: "The browser, its version, the transport and which features this connection supports."}),
	}
}
