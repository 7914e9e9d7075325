package wire

import (
	"fmt"
	"strings"
)

// DiagnosticsOut is what went wrong or was slow in one tab, in one
// compact report: the page's errors and warnings (console, uncaught
// exceptions), failed and slow requests, navigation timing and long
// tasks. Each list keeps its newest entries (see the counts for how many
// there were).
type DiagnosticsOut struct {
	SurfaceID string          `json:"surface_id" cap:"-"`
	URL       string          `json:"url" cap:"url"`
	Timing    *NavTiming      `json:"timing,omitempty"`
	LongTasks LongTasks       `json:"long_tasks"`
	Problems  []ConsoleRecord `json:"problems,omitempty"` // errors, warnings, exceptions
	Failed    []NetworkRecord `json:"failed,omitempty"`
	Slow      []NetworkRecord `json:"slow,omitempty"`
	// Counts of everything seen, before the lists were cut.
	ProblemCount int `json:"problem_count"`
	FailedCount  int `json:"failed_count"`
	SlowCount    int `json:"slow_count"`
	// SlowMS is the duration above which a request counts as slow.
	SlowMS float64 `json:"slow_ms"`
}

// NavTiming is the document's navigation timing, in milliseconds from
// the start of the navigation.
type NavTiming struct {
	TTFB             float64 `json:"ttfb_ms"`
	DOMContentLoaded float64 `json:"dom_content_loaded_ms"`
	Load             float64 `json:"load_ms"` // 0 while it has not loaded
	TransferBytes    float64 `json:"transfer_bytes,omitempty"`
}

// LongTasks sums the main thread's tasks over 50 ms since the document
// started.
type LongTasks struct {
	Count     int     `json:"count"`
	TotalMS   float64 `json:"total_ms"`
	LongestMS float64 `json:"longest_ms"`
}

// Text is a few lines: a summary, then each problem, failed and slow
// request on its own line.
func (o *DiagnosticsOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "diagnostics of %s %s\n", o.SurfaceID, o.URL)
	if t := o.Timing; t != nil {
		load := "not loaded yet"
		if t.Load > 0 {
			load = fmt.Sprintf("load %.0f ms", t.Load)
		}
		fmt.Fprintf(&b, "timing: first byte %.0f ms, DOMContentLoaded %.0f ms, %s\n", t.TTFB, t.DOMContentLoaded, load)
	}
	fmt.Fprintf(&b, "long tasks: %d (%.0f ms in all, longest %.0f ms)\n", o.LongTasks.Count, o.LongTasks.TotalMS, o.LongTasks.LongestMS)
	fmt.Fprintf(&b, "errors and warnings: %d%s\n", o.ProblemCount, more(len(o.Problems), o.ProblemCount))
	for _, r := range o.Problems {
		fmt.Fprintf(&b, "  %s: %s", r.Level, r.Text)
		if r.URL != "" {
			fmt.Fprintf(&b, " (%s:%d)", r.URL, r.Line)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "failed requests: %d%s\n", o.FailedCount, more(len(o.Failed), o.FailedCount))
	for _, r := range o.Failed {
		why := r.Failed
		if why == "" {
			why = fmt.Sprintf("HTTP %d", r.Status)
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", r.Method, r.URL, why)
	}
	fmt.Fprintf(&b, "slow requests (over %.0f ms): %d%s\n", o.SlowMS, o.SlowCount, more(len(o.Slow), o.SlowCount))
	for _, r := range o.Slow {
		fmt.Fprintf(&b, "  %s %s: %.0f ms\n", r.Method, r.URL, r.DurationMS)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// more says how many of n a list shows, when it shows fewer.
func more(shown, n int) string {
	if shown < n {
		return fmt.Sprintf(" (the newest %d)", shown)
	}
	return ""
}
