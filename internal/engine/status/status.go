// Package status summarises a browser session for its callers: how loupe
// is connected to the browser, what it can do through that connection
// (doctor), and a cheap status of the session to compare before and after
// an operation (status, write reports). It reads what the engine core
// keeps and makes no protocol call.
package status

import "github.com/loupe-dev/loupe/internal/engine"

// Transport is how loupe talks to the browser: "pipe" when it launched it,
// "websocket" when attached.
func Transport(b *engine.Browser) string {
	if b.Launched() {
		return "pipe"
	}
	return "websocket"
}

// Features is the capability matrix of this connection: what loupe can do
// through it, each feature true only when it is implemented and works over
// this transport.
func Features(b *engine.Browser) map[string]bool {
	f := features(b)
	for _, k := range Unverified(b) {
		f[k] = false
	}
	return f
}

// Unverified names the features loupe implements for this connection but
// has not proven on it: in an Electron app, surface targeting (windows,
// views and webviews as surfaces) is built from Electron's documented
// targets but no real Electron app has passed the fixtures yet, so doctor
// says "unverified" rather than "yes".
func Unverified(b *engine.Browser) []string {
	if b.Electron() {
		return []string{"surfaceTargeting"}
	}
	return nil
}

func features(b *engine.Browser) map[string]bool {
	return map[string]bool{
		"surfaceTargeting":       true,
		"frameSurfaces":          true,
		"outOfProcessFrames":     true,
		"shadowRoots":            true,
		"trustedInput":           true,
		"fileUpload":             true,
		"screenshots":            true,
		"consoleCapture":         true,
		"networkCapture":         true,
		"dialogHandling":         true,
		"electronClassification": b.Classified(),
	}
}

// Status is a cheap summary of the session, for telling what an operation
// changed: compare one taken before with one taken after. It makes no
// protocol call.
type Status struct {
	Pages   []string `json:"pages"`   // live page roots, in order
	Dialogs int64    `json:"dialogs"` // dialogs seen so far
}

// Of reports the session's status now.
func Of(b *engine.Browser) Status {
	pages := b.Pages()
	s := Status{Pages: make([]string, 0, len(pages))}
	for _, t := range pages {
		s.Pages = append(s.Pages, t.ID)
	}
	s.Dialogs = b.Events().DialogCount()
	return s
}
