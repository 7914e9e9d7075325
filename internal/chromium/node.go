package chromium

import "strings"

// NodeFlags are the flags of a browser started by someone else for loupe
// — a Selenium Grid node's chromedriver — so that it behaves as the
// browsers loupe launches (Flags): headless, quiet on the network,
// unthrottled in the background, with site isolation. Left out are the
// flags its starter sets itself (the profile directory, the debugging
// transport, the first page). --no-sandbox is always given: a node's
// user is unknown here, and Chromium refuses to start as root without
// it (as in the containers Grids usually run in).
func NodeFlags() []string {
	var out []string
	for _, f := range Flags(LaunchOptions{Headed: true}) {
		switch {
		case f == "--remote-debugging-pipe", f == "about:blank", f == "--no-sandbox",
			strings.HasPrefix(f, "--user-data-dir="):
			continue
		}
		out = append(out, f)
	}
	return append(out, "--headless=new", "--hide-scrollbars", "--no-sandbox")
}
