package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestSurfacesThroughCLI lists, selects and uses surfaces as a shell user
// would: the JSON contract, switch, scoped snapshot and actions, refs of
// another surface refused, the event commands, doctor, and clear errors.
func TestSurfacesThroughCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := testpages.StartPair(t)
	e.ok("open", a.Page("surfaces/top.html"))

	type desc struct {
		ID             string `json:"id"`
		Kind           string `json:"kind"`
		ParentID       string `json:"parentId"`
		URL            string `json:"url"`
		Active         bool   `json:"active"`
		OriginRelation string `json:"originRelation"`
	}
	var list struct {
		Active   string `json:"active_surface_id"`
		Surfaces []desc `json:"surfaces"`
	}
	// Frames commit on their own; a sandboxed frame's process may do so
	// after the page's load event. Bounded: 50 listings.
	var raw string
	for i := 0; ; i++ {
		raw = e.ok("--json", "surfaces")
		if err := json.Unmarshal([]byte(raw), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Surfaces) == 6 && !slices.ContainsFunc(list.Surfaces, func(d desc) bool { return d.URL == "" }) {
			break
		}
		if i == 50 {
			t.Fatalf("frames never all committed:\n%s", raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal([]byte(raw), &top)
	if len(top) != 2 || top["active_surface_id"] == nil || top["surfaces"] == nil {
		t.Fatalf("surfaces --json must be exactly {active_surface_id, surfaces}: %s", raw)
	}
	var descs []map[string]json.RawMessage
	_ = json.Unmarshal(top["surfaces"], &descs)
	allowed := []string{"id", "kind", "parentId", "title", "url", "active", "capabilities", "originRelation"}
	for _, d := range descs {
		for k := range d {
			if !slices.Contains(allowed, k) {
				t.Errorf("descriptor field %q is not in the contract: %s", k, raw)
			}
		}
	}
	tab := list.Surfaces[0]
	if tab.Kind != "tab" || !tab.Active || list.Active != tab.ID {
		t.Fatalf("first surface: %+v (active %s)", tab, list.Active)
	}
	var cross desc
	for _, d := range list.Surfaces {
		if strings.Contains(d.URL, "label=cross") {
			cross = d
		}
	}
	if cross.Kind != "frame" || cross.ParentID != tab.ID || cross.OriginRelation != "cross-origin" {
		t.Fatalf("cross frame: %+v", cross)
	}
	text := e.ok("surfaces")
	if !strings.Contains(text, "* "+tab.ID+" tab \"surfaces top\"") || !strings.Contains(text, "  "+cross.ID+" frame cross-origin") {
		t.Errorf("surfaces text:\n%s", text)
	}

	topSnap := e.ok("snapshot")
	openRef := refOf(t, topSnap, "button", "Open popup")

	// switch: the descriptor comes back, and everything acts on the frame.
	if out := e.ok("switch", cross.ID); !strings.HasPrefix(out, "* "+cross.ID+" frame") {
		t.Errorf("switch output: %q", out)
	}
	snap := e.ok("snapshot")
	if !strings.Contains(snap, "surface "+cross.ID) || !strings.Contains(snap, "cross idle") || strings.Contains(snap, "Surfaces top") {
		t.Fatalf("snapshot after switch is not the frame's:\n%s", snap)
	}
	e.ok("click", refOf(t, snap, "button", "Press"))
	e.ok("wait", "--text", "pressed:cross:true")
	if v := e.ok("eval", "location.search"); strings.TrimSpace(v) != `"?label=cross"` {
		t.Errorf("eval on the frame surface: %q", v)
	}

	// A ref of the tab, used on the frame: refused, naming its surface.
	r := e.run("--json", "click", openRef)
	if r.code != 1 || !strings.Contains(r.stdout, `"code":"REF_WRONG_SURFACE"`) || !strings.Contains(r.stdout, `"surface_id":"`+tab.ID+`"`) {
		t.Errorf("tab ref on frame: exit %d %s", r.code, r.stdout)
	}
	if r := e.run("reload"); r.code != 1 || !strings.HasPrefix(r.stderr, "SURFACE_UNSUPPORTED: ") {
		t.Errorf("reload on a frame: exit %d %q", r.code, r.stderr)
	}
	if r := e.run("switch", "s999"); r.code != 1 || !strings.HasPrefix(r.stderr, "SURFACE_NOT_FOUND: ") {
		t.Errorf("switch to an unknown id: exit %d %q", r.code, r.stderr)
	}
	if r := e.run("switch"); r.code != 2 {
		t.Errorf("switch without an id: exit %d %q", r.code, r.stderr)
	}
	if r := e.run("dialogs", "--accept", "--dismiss"); r.code != 2 {
		t.Errorf("two dialog policies: exit %d %q", r.code, r.stderr)
	}

	// Back on the tab; windows is the page-root view.
	e.ok("switch-window", tab.ID)
	var ws struct {
		Windows []struct {
			ID       string `json:"id"`
			WindowID int64  `json:"windowId"`
		} `json:"windows"`
	}
	e.okJSON(&ws, "windows")
	if len(ws.Windows) != 1 || ws.Windows[0].ID != tab.ID || ws.Windows[0].WindowID == 0 {
		t.Errorf("windows: %+v", ws)
	}
	if r := e.run("switch-window", cross.ID); r.code != 1 || !strings.HasPrefix(r.stderr, "SURFACE_UNSUPPORTED: ") {
		t.Errorf("switch-window to a frame: exit %d %q", r.code, r.stderr)
	}

	// Events carry the surface the protocol names.
	var con struct {
		Records []struct {
			SurfaceID string `json:"surface_id"`
			Text      string `json:"text"`
		} `json:"records"`
	}
	e.okJSON(&con, "console", "--surface", cross.ID)
	if len(con.Records) == 0 {
		t.Fatal("no console records for the cross frame")
	}
	for _, c := range con.Records {
		if c.SurfaceID != cross.ID || !strings.HasPrefix(c.Text, "cross ") {
			t.Errorf("console record %+v", c)
		}
	}
	if out := e.ok("network"); !strings.Contains(out, "["+tab.ID+"] GET 200") || !strings.Contains(out, "Document "+a.Page("surfaces/top.html")) {
		t.Errorf("network:\n%s", out)
	}
	e.ok("click", refOf(t, topSnap, "button", "Confirm"))
	e.ok("wait", "--text", "confirm:false")
	if out := e.ok("dialogs"); !strings.Contains(out, "policy: auto") || !strings.Contains(out, "["+tab.ID+`] confirm "sure?": dismissed`) {
		t.Errorf("dialogs:\n%s", out)
	}

	var doc struct {
		Browser   string          `json:"browser"`
		Version   string          `json:"version"`
		Transport string          `json:"transport"`
		Binary    string          `json:"binary"`
		Features  map[string]bool `json:"features"`
	}
	e.okJSON(&doc, "doctor")
	if doc.Transport != "pipe" || doc.Version == "" || !doc.Features["surfaceTargeting"] || doc.Features["electronClassification"] {
		t.Errorf("doctor: %+v", doc)
	}
	// Which build runs: the one loupe launched.
	if fi, err := os.Stat(doc.Binary); err != nil || !filepath.IsAbs(doc.Binary) || fi.Mode()&0o111 == 0 {
		t.Errorf("doctor names the launched binary %q: %v", doc.Binary, err)
	}
}
