package handlers

import (
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/snapshot"
	"github.com/loupe-dev/loupe/internal/textdiff"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Cheap reads of a snapshot, for agents that pay for every character:
// only the lines about something (grep), or only what changed (since).

// grep keeps a snapshot's lines that contain needle and their ancestors.
func grep(out *ops.SnapshotOut, needle string) {
	kept, n := snapshot.Grep(wire.WithoutFooter(out.Snapshot.Text), needle)
	out.Full = out.Snapshot.Text
	setText(out, kept)
	out.Grep, out.Matched = needle, n
}

// sinceDiffLines and sinceDiffChars bound what since shows; past them it
// says how many changes it left out.
const (
	sinceDiffLines = 400
	sinceDiffChars = 40000
)

// sinceLast replaces a snapshot's text by what changed since the caller's
// last snapshot of the surface ("+ line", "- line" under the header), or
// says that nothing did. With no earlier snapshot, or one of another shape
// (ops.SnapshotIn.Shape: an interactive one, another depth), the whole one
// stands.
// The whole text is still the caller's last snapshot from now on.
func sinceLast(c Caller, in *ops.SnapshotIn, out *ops.SnapshotOut) {
	full := wire.WithoutFooter(out.Snapshot.Text)
	if out.Full != "" {
		full = wire.WithoutFooter(out.Full)
	}
	last, lastIn, ok := c.LastSnapshot(out.SurfaceID)
	out.Since = "last"
	if !ok {
		out.Since = "none: this is your first snapshot of " + out.SurfaceID
		return
	}
	if lastIn.Shape() != in.Shape() {
		// Lines of an interactive snapshot against a whole one's (or
		// another depth, scope, …) would differ in everything but the
		// page: the whole snapshot says more than that diff.
		out.Since = "none: your last snapshot of " + out.SurfaceID + " was taken with other options (" + shapeDiff(lastIn.Shape(), in.Shape()) + "); this one is whole"
		return
	}
	header, body, _ := strings.Cut(full, "\n")
	_, lastBody, _ := strings.Cut(wire.WithoutFooter(last), "\n")
	d := textdiff.Lines(lastBody, body)
	if out.Full == "" {
		out.Full = out.Snapshot.Text
	}
	out.Added, out.Removed = d.Added, d.Removed
	text := header + "\n"
	if d.Added+d.Removed == 0 {
		text += "(nothing changed since your last snapshot)\n"
	} else {
		text += fmt.Sprintf("(since your last snapshot: %s added, %d removed)\n", lines(d.Added), d.Removed) + d.Format(sinceDiffLines, sinceDiffChars)
	}
	setText(out, text)
}

// shapeDiff names the options in which two snapshot shapes differ, by
// their input field names.
func shapeDiff(a, b ops.SnapshotIn) string {
	var names []string
	add := func(differ bool, name string) {
		if differ {
			names = append(names, name)
		}
	}
	add(a.Interactive != b.Interactive, "interactive")
	add(a.Depth != b.Depth, "depth")
	add(a.Viewport != b.Viewport, "viewport")
	add(a.Locators != b.Locators, "locators")
	add(a.Scope != b.Scope, "scope")
	add(a.MaxChars != b.MaxChars, "max_chars")
	add(a.NoCompact != b.NoCompact, "no_compact")
	return strings.Join(names, ", ")
}

// setText replaces a snapshot's text, which still ends with its size
// line, and its size.
// cut bounds a read's text to max characters at a line boundary, saying
// how many of its lines it shows, as a budgeted snapshot does.
func cut(out *ops.SnapshotOut, max int) {
	t := wire.WithoutFooter(out.Snapshot.Text)
	if len(t) <= max {
		return
	}
	keep := t[:max]
	if i := strings.LastIndexByte(keep, '\n'); i >= 0 {
		keep = keep[:i+1]
	}
	total := strings.Count(t, "\n")
	setText(out, keep+fmt.Sprintf("[truncated: %d of %d lines shown]\n", strings.Count(keep, "\n"), total))
	out.Truncated = true
}

func setText(out *ops.SnapshotOut, t string) {
	out.Chars, out.Tokens = len(t), wire.Tokens(t)
	out.Snapshot.Text = t + wire.Footer(t)
}

func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
