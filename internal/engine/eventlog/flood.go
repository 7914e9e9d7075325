package eventlog

import "time"

// A page may open dialogs without end (an alert() in a loop): loupe
// answers each at once, so the page's script runs on, opens the next, and
// keeps its renderer's main thread busy for good — snapshots, clicks and
// navigations of the tab wait behind it. FloodMeter tells such a flood from
// a page that asks a few questions: FloodDialogs dialogs within
// FloodWindow.
const (
	FloodDialogs = 20
	FloodWindow  = time.Second
)

// FloodMeter counts one session's recent dialogs. Its owner serialises
// calls (one session's dialogs are answered one at a time).
type FloodMeter struct {
	times [FloodDialogs]time.Time
	next  int
	n     int
}

// Add records a dialog at now and reports whether the last FloodDialogs
// dialogs, this one included, came within FloodWindow.
func (m *FloodMeter) Add(now time.Time) bool {
	m.times[m.next] = now
	m.next = (m.next + 1) % FloodDialogs
	if m.n < FloodDialogs {
		m.n++
	}
	// The slot to be written next holds the oldest of the last
	// FloodDialogs.
	return m.n == FloodDialogs && now.Sub(m.times[m.next]) < FloodWindow
}
