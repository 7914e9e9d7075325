package engine

import "slices"

// Transport is how loupe talks to the browser: "pipe" when it launched it,
// "websocket" when attached.
func (b *Browser) Transport() string {
	if b.proc != nil {
		return "pipe"
	}
	return "websocket"
}

// Endpoint is the websocket URL of an attached browser ("" when launched).
func (b *Browser) Endpoint() string { return b.endpoint }

// Features is the capability matrix of this connection: what loupe can do
// through it, each feature true only when it is implemented and works over
// this transport.
func (b *Browser) Features() map[string]bool {
	b.mu.Lock()
	classified := b.classifier != nil
	b.mu.Unlock()
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
		"electronClassification": classified,
	}
}

// Status is a cheap summary of the session, for telling what an operation
// changed: compare one taken before with one taken after. It makes no
// protocol call.
type Status struct {
	Pages   []string `json:"pages"`   // live page roots, in order
	Dialogs int64    `json:"dialogs"` // dialogs seen so far
}

// Status reports the session's status now.
func (b *Browser) Status() Status {
	b.mu.Lock()
	s := Status{Pages: slices.Clone(b.order)}
	b.mu.Unlock()
	s.Dialogs = b.events.DialogCount()
	return s
}
