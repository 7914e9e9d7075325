package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/textdiff"
)

// lastSnapshot is the agent's latest snapshot of a surface and the options
// it was taken with, to diff a write's effect against.
type lastSnapshot struct {
	in   ops.SnapshotIn
	text string
}

// Caps of the change report.
const (
	diffLines = 40
	diffChars = 4000
)

// remember keeps a snapshot as the agent's latest of its surface.
func (s *Server) remember(out *ops.SnapshotOut, in ops.SnapshotIn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[out.Surface] = lastSnapshot{in: in, text: body(snapText(out))}
}

// body drops a snapshot's size footer, which changes with any change.
func body(t string) string {
	if i := strings.LastIndex(t, "\n["); i >= 0 && strings.HasSuffix(t, "tokens]") {
		return t[:i]
	}
	return t
}

// status takes the session's status (no protocol calls).
func (s *Server) status(ctx context.Context) *ops.StatusOut {
	out, err := s.b.Do(ctx, "status", &ops.NoIn{})
	if err != nil {
		return nil
	}
	st, _ := out.(*ops.StatusOut)
	return st
}

// write runs a write operation and reports what it changed: its own
// result, a navigation of the active surface, pages opened or closed,
// dialogs answered meanwhile, and the change to the agent's last snapshot
// of the active surface (or, with full, a new snapshot).
func (s *Server) write(ctx context.Context, op string, in any, full bool) (string, any, error) {
	before := s.status(ctx)
	out, err := s.b.Do(ctx, op, in)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	b.WriteString(text(out))
	after := s.status(ctx)
	if before != nil && after != nil {
		s.reportStatus(ctx, &b, before, after)
	}
	if after == nil || after.Active == "" {
		return b.String(), out, nil
	}
	s.mu.Lock()
	last, ok := s.last[after.Active]
	s.mu.Unlock()
	if !full && !ok {
		fmt.Fprintf(&b, "\n(take browser_snapshot to see %s)", after.Active)
		return b.String(), out, nil
	}
	snap, err := s.snapshot(ctx, last.in) // the options of the agent's last one
	switch {
	case err != nil:
		fmt.Fprintf(&b, "\n(no new snapshot: %v)", err)
	case full:
		b.WriteString("\n\n" + snapText(snap))
	default:
		d := textdiff.Lines(last.text, body(snapText(snap)))
		if d.Added+d.Removed == 0 {
			fmt.Fprintf(&b, "\nno change to your last snapshot of %s", after.Active)
		} else {
			fmt.Fprintf(&b, "\nchanges to your last snapshot of %s (+%d -%d):\n%s", after.Active, d.Added, d.Removed,
				strings.TrimSuffix(d.Format(diffLines, diffChars), "\n"))
		}
	}
	return b.String(), out, nil
}

// snapshot takes a snapshot and remembers it.
// snapText is a snapshot's text for an MCP agent, without the size footer
// (every result carries its size in _meta, loupe/estimatedTokens): a cut
// one says, in tool calls, how to see the rest.
func snapText(o *ops.SnapshotOut) string {
	t := body(strings.TrimSuffix(o.Snapshot.Text, "\n"))
	if o.Truncated {
		t += fmt.Sprintf("\n(the rest: browser_snapshot with scope set to a ref from above, viewport: true, interactive: true or depth: N; or max_chars above %d)", o.Chars)
	}
	return t
}

func (s *Server) snapshot(ctx context.Context, in ops.SnapshotIn) (*ops.SnapshotOut, error) {
	c := in
	out, err := s.b.Do(ctx, "snapshot", &c)
	if err != nil {
		return nil, err
	}
	snap := out.(*ops.SnapshotOut)
	s.remember(snap, in)
	return snap, nil
}

func (s *Server) reportStatus(ctx context.Context, b *strings.Builder, before, after *ops.StatusOut) {
	if before.Active == after.Active && before.URL != after.URL && after.URL != "" {
		fmt.Fprintf(b, "\nnavigated: %s", after.URL)
	}
	if before.Active != after.Active {
		fmt.Fprintf(b, "\nactive surface: %s (was %s)", orNone(after.Active), orNone(before.Active))
	}
	for _, p := range after.Pages {
		if !slices.Contains(before.Pages, p) {
			fmt.Fprintf(b, "\nopened: %s (see browser_tabs; browser_tabs select to use it)", p)
		}
	}
	for _, p := range before.Pages {
		if !slices.Contains(after.Pages, p) {
			fmt.Fprintf(b, "\nclosed: %s", p)
		}
	}
	if after.Dialogs > before.Dialogs {
		if out, err := s.b.Do(ctx, "dialogs", &ops.DialogsIn{}); err == nil {
			recs := out.(*ops.DialogsOut).Records
			n := int(after.Dialogs - before.Dialogs)
			if n > len(recs) {
				n = len(recs)
			}
			for _, r := range recs[len(recs)-n:] {
				fmt.Fprintf(b, "\ndialog on %s: %s %q, %s", orNone(r.SurfaceID), r.Type, r.Message, r.Action)
			}
		}
	}
	if after.Downloads > before.Downloads {
		fmt.Fprintf(b, "\ndownload started (browser_download wait: true to wait for it)")
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
