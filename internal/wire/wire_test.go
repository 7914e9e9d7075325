package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json and *.txt from the examples (review the diff: it is the contract)")

var (
	t0 = time.Date(2025, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
	t1 = t0.Add(1500 * time.Millisecond)
)

// examples holds one fully populated value of every output type, named as
// its golden files are (testdata/NAME.json, and NAME.txt for its text).
// Every field is set (in at least one element of a list), so every
// field's name and form is pinned; a field left at its zero value fails
// TestExamplesArePopulated.
func examples() map[string]any {
	present := true
	surface := Surface{
		ID: "s3", Kind: KindFrame, ParentID: "s1", Title: "Sign in", URL: "https://login.example.com/",
		Active: true, Capabilities: Capabilities{Snapshot: true, Interaction: true, RendererEval: true},
		OriginRelation: CrossOrigin,
	}
	download := Download{
		Seq: 4, ID: "5f0c6f0e-guid", SurfaceID: "s1", URL: "https://example.com/report.csv", Filename: "report.csv",
		Path: "/home/u/.loupe/sessions/default/files/downloads/report.csv", State: "completed", Bytes: 2048, Total: 2048,
		Started: t0, Finished: t1,
	}
	return map[string]any{
		"SnapshotOut": &SnapshotOut{Snapshot{
			SurfaceID: "s1", URL: "https://example.com/", Title: "Example", Scope: "e4", DocumentToken: "d-8F3A",
			Text:  "- iframe \"Sign in\" [ref=e4]\n  - textbox \"Email\" [ref=e5]\n",
			Refs:  []RefInfo{{Ref: "e5", FrameID: "F1A2", BackendNodeID: 42, Role: "textbox", Name: "Email", Control: true}},
			Nodes: 3, Frames: 2, Chars: 52, Tokens: 13, Truncated: true,
			Grep: "email", Matched: 1, Since: "last", Added: 1, Removed: 2, Full: "(not sent)",
		}},
		"ActOut": &ActOut{Surface: "s1", Ref: "e5", Executed: true, Value: "me@example.com", Note: "typed and submitted",
			URL: "https://example.com/", X: 120.5, Y: 48},
		"NavOut": &NavOut{Surface: "s1", URL: "https://example.com/", Title: "Example", Loaded: true, Status: 200},
		"DiagnosticsOut": &DiagnosticsOut{SurfaceID: "s1", URL: "https://example.com/",
			Timing:       &NavTiming{TTFB: 42, DOMContentLoaded: 180, Load: 240, TransferBytes: 5120},
			LongTasks:    LongTasks{Count: 1, TotalMS: 120, LongestMS: 120},
			Problems:     []ConsoleRecord{{Seq: 4, SurfaceID: "s1", Level: "exception", Text: "Uncaught Error: boom", URL: "https://example.com/app.js", Line: 12, Time: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}},
			Failed:       []NetworkRecord{{Seq: 5, SurfaceID: "s1", Method: "GET", URL: "https://example.com/data.json", Type: "Fetch", Status: 404, MIME: "text/plain", Bytes: 19, Failed: "net::ERR_FAILED", State: "failed", Start: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), DurationMS: 12}},
			Slow:         []NetworkRecord{{Seq: 6, SurfaceID: "s1", Method: "GET", URL: "https://example.com/big.js", Type: "Script", Status: 200, MIME: "text/javascript", Bytes: 90000, Failed: "net::ERR_ABORTED", State: "failed", Start: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), DurationMS: 2400}},
			ProblemCount: 3, FailedCount: 1, SlowCount: 1, SlowMS: 1000,
		},
		"RecordOut": &RecordOut{SurfaceID: "s1", Running: true, ElapsedMS: 20000, MaxMS: 20000, Frames: 300, Bytes: 48213,
			Path: "/home/u/.loupe/sessions/default/files/recording-20261201-120000.webm", Duration: 20, Ended: "limit: 20s", Kept: true,
			Why: "it decodes: vp8, 1280x632, 20.0 s"},
		"StorageStateOut": &StorageStateOut{Action: "load", Partition: "temp:signed-in", Path: "/home/u/.loupe/sessions/default/files/state.json",
			Cookies: 3, Origins: 2, NoTab: 1, State: json.RawMessage(`{"cookies":[],"origins":[]}`)},
		"WaitOut": &WaitOut{Surface: "s1", Matched: "text \"Welcome\"", URL: "https://example.com/home", Waited: "120ms"},
		"QueryOut": &QueryOut{SurfaceID: "s1", Count: 3, Ambiguous: true, Matches: []QueryMatch{
			{Ref: "e7", Role: "button", Name: "Save", States: "disabled focused", FrameID: "F1A2", Text: "Save draft"},
		}},
		"ValueOut": &ValueOut{Ref: "e5", Value: "email", Present: &present},
		"BoxOut":   &BoxOut{Ref: "e5", X: 10, Y: 20.5, Width: 300, Height: 32, ScrollX: 0.5, ScrollY: 400},
		"PickOut":  &PickOut{SurfaceID: "s2", FrameID: "F3A1", Ref: "e7", Line: `textbox "Notes" [ref=e7]`, Locator: `role=textbox[name="Notes"]`},
		"StateOut": &StateOut{Ref: "e6", Role: "checkbox", Tag: "input", Visible: true, Enabled: true, Editable: true, Checked: "mixed", Focused: true, InViewport: true},
		"EvalOut":  &EvalOut{Value: json.RawMessage(`{"n":1,"ok":true}`)},
		"ScreenshotOut": &ScreenshotOut{Path: "/home/u/.loupe/sessions/default/files/screenshot-s1.png", Bytes: 4, PNG: []byte("\x89PNG"), Width: 1280, Height: 720, Observation: "obs-0a1b2c3d4e5f60718293a4b5",
			Labels: []Label{{Ref: "e3", Line: `button "Pay" [ref=e3]`, X: 8, Y: 187, W: 54, H: 21}}},
		"TabsOut": &TabsOut{Active: "s2", Tabs: []Tab{
			{ID: "s1", Title: "Checkout", URL: "https://shop.example.com/pay", Owner: "research", Mode: "human", Crashed: true, Partition: "temp:research", Session: "default", Epoch: 2, Navigating: true, Restored: true},
			{ID: "s2", Title: "Popup", URL: "https://example.com/popup", Active: true, Opener: "s1"},
		}},
		"TabOut": &TabOut{Tab: Tab{ID: "s2", Title: "Popup", URL: "https://example.com/popup", Active: true, Opener: "s1", Owner: "research", Mode: "human", Crashed: true, Partition: "temp:research", Session: "default", Epoch: 2, Navigating: true, Restored: true}, Closed: true, OwnClosed: true, Current: "s1"},
		"SurfacesOut": &SurfacesOut{ActiveSurfaceID: "s3", Surfaces: []Surface{
			{ID: "s1", Kind: KindTab, Title: "Example", URL: "https://example.com/", Capabilities: Capabilities{Snapshot: true, Interaction: true, RendererEval: true}},
			surface,
			{ID: "s5", Kind: KindFrame, ParentID: "s3", URL: "about:srcdoc", Capabilities: Capabilities{Snapshot: true, Interaction: true, RendererEval: true}, OriginRelation: SameOrigin},
			{ID: "s6", Kind: KindFrame, ParentID: "s1", URL: "data:text/html,hi", Capabilities: Capabilities{}, OriginRelation: Opaque, Crashed: true},
		}},
		"SurfaceOut": func() *SurfaceOut { s := SurfaceOut(surface); s.Crashed = true; return &s }(),
		"WindowsOut": &WindowsOut{ActiveSurfaceID: "s4", Windows: []Window{{
			Surface: Surface{ID: "s4", Kind: KindWebview, ParentID: "s1", Title: "Docs", URL: "https://docs.example.com/",
				Active: true, Capabilities: Capabilities{Snapshot: true, Interaction: true, RendererEval: true}, OriginRelation: CrossOrigin, Crashed: true},
			WindowID: 7, OpenerID: "s1",
		}}},
		"StatusOut": &StatusOut{Active: "s1", URL: "https://example.com/", Pages: []string{"s1", "s2"}, Dialogs: 1, Downloads: 2,
			Browser: "grid", Grid: &GridPlace{URL: "http://127.0.0.1:4444", Session: "b5ddc956f99001fb", Node: "http://127.0.0.1:4444"}},
		"ConsoleOut": &ConsoleOut{Records: []ConsoleRecord{
			{Seq: 1, SurfaceID: "s3", Level: "error", Text: "boom", URL: "https://login.example.com/app.js", Line: 12, Time: t0},
		}},
		"NetworkOut": &NetworkOut{Records: []NetworkRecord{
			{Seq: 2, SurfaceID: "s1", Method: "GET", URL: "https://example.com/api", Type: "Fetch", Status: 404, MIME: "application/json",
				Bytes: 512, Failed: "net::ERR_ABORTED", State: "failed", Start: t0, DurationMS: 12.5},
		}, HAR: &HARFile{SurfaceID: "s1", Path: "/home/u/.loupe/sessions/default/files/traffic.har", Since: t0, Entries: 42, Bodies: 30, BodyBytes: 181234,
			Dropped: 3, Pending: 1, Data: json.RawMessage(`{"log":{"version":"1.2"}}`)}},
		"RoutesOut": &RoutesOut{SurfaceID: "s1", Set: "**/api/*", Cleared: 1, Routes: []Route{
			{Pattern: "**/api/*", Action: "fulfill", Status: 201, Headers: []string{"Content-Type: application/json"}, BodyBytes: 120, Source: "mock.json", Hits: 3},
			{Pattern: "**/*.{png,jpg}", Action: "abort"},
		}},
		"CaptureOut": &CaptureOut{SurfaceID: "s1", Capturing: true, Since: t0, Requests: 12, Stopped: true},
		"DialogsOut": &DialogsOut{Policy: DialogPolicy{Mode: "accept", PromptText: "Ada"}, Records: []DialogRecord{
			{Seq: 3, SurfaceID: "s1", Type: "prompt", Message: "name?", URL: "https://example.com/", DefaultPrompt: "def",
				Action: "accepted", PromptText: "Ada", Time: t0},
		}},
		"DownloadsOut":     &DownloadsOut{Finished: &download, Downloads: []Download{download}},
		"OperationsOut":    &OperationsOut{Host: "web-3/5f1c0a9e2b7d", Operations: []Operation{exampleOperationHere, exampleOperation}},
		"HistoryOut":       &HistoryOut{Operations: []Operation{exampleOperation}},
		"OperationOut":     &OperationOut{exampleOperation},
		"ControlOut":       &ControlOut{SurfaceID: "s1", Mode: "agent", Epoch: 2, StaleRefs: 14},
		"ViewportOut":      &ViewportOut{SurfaceID: "s1", Width: 390, Height: 844, Scale: 3, Mobile: true},
		"ApprovalsOut":     &ApprovalsOut{Approvals: []Approval{exampleApproval}},
		"AnswerOut":        &AnswerOut{Approval: exampleApproval, Approved: true},
		"TasksOut":         &TasksOut{Grants: []Grant{exampleGrant}},
		"TaskEndOut":       &TaskEndOut{Task: "research", Revoked: []Grant{exampleGrant}},
		"ImportCookiesOut": &ImportCookiesOut{From: "/home/me/.config/chromium/Default/Cookies", Imported: 41, SkippedExpired: 3, SkippedAppBound: 2, SkippedUndecryptable: 1},
		"DashboardOut":     &DashboardOut{URL: "http://127.0.0.1:41234/?token=0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978"},
		"BrokerOut":        &BrokerOut{URL: "http://127.0.0.1:41235"},
		"BrokerRegisterOut": &BrokerRegisterOut{BrokerHost: BrokerHost{Host: "devbox", Generation: 2, Created: t0, LastUsed: &t0, Revoked: &t0, Ended: 1},
			Token: "lbt_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69780f1e2d3c4b5a6978"},
		"BrokerHostsOut": &BrokerHostsOut{Hosts: []BrokerHost{{Host: "devbox", Generation: 2, Created: t0, LastUsed: &t0}, {Host: "old", Generation: 1, Created: t0, Revoked: &t0, Ended: 2}}},
		"HumanInputOut":  &HumanInputOut{SurfaceID: "s3", Kind: "text"},
		"ClearedOut":     &ClearedOut{Session: "default", Cleared: "the HTTP cache, Cache Storage and service workers", Kept: "cookies and site data; temp partitions"},
		"SettingsOut":    &SettingsOut{File: "/home/me/.loupe/settings.json", ControlEnabled: true, IgnoreCertificateErrors: true},
		"PolicyOut":      &PolicyOut{Rules: []PolicyRule{{Key: "input", Origin: "https://*.bank.example", Decision: "ask"}}, ApprovalTimeout: "2m0s"},
		"SessionOut":     &SessionOut{Session: "work", Browser: "Chrome/156.0.0.0", Attached: true, Closed: true, Active: "s1"},
		"DoctorOut": &DoctorOut{Session: "work", Browser: "Chrome", Version: "156.0.0.0", Transport: "websocket",
			Endpoint: "ws://127.0.0.1:9222/devtools/browser/x", PID: 4242, Binary: "/usr/lib/chromium/chromium-headless-shell", Electron: true,
			Features: map[string]bool{"surfaceTargeting": false, "electronClassification": false}, Unverified: []string{"surfaceTargeting"}},
	}
}

// TestGoldens marshals every example and compares it with its golden
// files: the JSON, and the text form where the type has one.
func TestGoldens(t *testing.T) {
	for name, v := range examples() {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden(t, name+".json", got)
			if tx, ok := v.(interface{ Text() string }); ok {
				golden(t, name+".txt", []byte(tx.Text()+"\n"))
			}
			// Front ends decode the JSON into the same type (the CLI
			// prints Text() of what it decoded): it must come back
			// whole.
			back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			if err := json.Unmarshal(got, back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.MarshalIndent(back, "", "  ")
			if string(again)+"\n" != string(got) {
				t.Errorf("JSON does not survive a round trip:\n%s\nvs\n%s", got, again)
			}
		})
	}
}

func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/wire -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed; the JSON contract moves only on purpose (then -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestExamplesArePopulated: every field of every example, nested records
// included, is set, so the goldens show every field.
func TestExamplesArePopulated(t *testing.T) {
	for name, v := range examples() {
		for _, p := range zeroFields(reflect.ValueOf(v), name) {
			t.Errorf("%s is not set in the example", p)
		}
	}
}

func zeroFields(v reflect.Value, path string) []string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return []string{path}
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			if v.IsZero() {
				return []string{path}
			}
			return nil
		}
		var out []string
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			out = append(out, zeroFields(v.Field(i), path+"."+f.Name)...)
		}
		return out
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return []string{path}
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Uint8 {
			// A field counts as shown when any element of the list sets
			// it (a tab has no parentId, the frame after it does).
			out := zeroFields(v.Index(0), path+"[]")
			for i := 1; i < v.Len(); i++ {
				z := zeroFields(v.Index(i), path+"[]")
				out = slices.DeleteFunc(out, func(p string) bool { return !slices.Contains(z, p) })
			}
			return out
		}
		return nil
	}
	if v.IsZero() {
		return []string{path}
	}
	return nil
}

// TestEveryOutputHasAnExample: every exported type of this package named
// …Out (an operation's output) has an example, so has its goldens.
func TestEveryOutputHasAnExample(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ex := examples()
	var outs []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				n := s.(*ast.TypeSpec).Name.Name
				if ast.IsExported(n) && strings.HasSuffix(n, "Out") {
					outs = append(outs, n)
					if ex[n] == nil {
						t.Errorf("output type %s has no example in examples()", n)
					}
				}
			}
		}
	}
	for n, v := range ex {
		if got := reflect.TypeOf(v).Elem().Name(); got != n {
			t.Errorf("example %s is a %s", n, got)
		}
		if !slices.Contains(outs, n) {
			t.Errorf("example %s names no output type of this package", n)
		}
	}
	// Goldens of a type that went away are stale.
	gs, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, g := range gs {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(g), ".json"), ".txt")
		if ex[base] == nil {
			t.Errorf("%s belongs to no example", g)
		}
	}
}

// TestImportsOnlyTheStandardLibrary: the contract is defined here alone;
// no engine (or other loupe) type can leak into it. The one loupe package
// it may use is safetext, a leaf of the standard library that defines no
// types.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if p == "github.com/loupe-dev/loupe/internal/safetext" {
				continue
			}
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: package wire may use the standard library only", f, p)
			}
		}
	}
}

var exampleOperation = Operation{ID: "op-1f2e", Session: "work", Task: "t1", Client: "mcp-42", Generation: 3, Host: "web-1/0c9d8e7f6a5b", SurfaceID: "s1", Epoch: 2, Document: "d-7f3a",
	Op: "click", Action: "input", Digest: "9a1b2c3d4e5f6a7b", State: "unknown", Code: "OUTCOME_UNKNOWN",
	Reason:   "loupe (pid 42) stopped before this write was settled",
	Reserved: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Settled: time.Date(2026, 12, 1, 12, 0, 1, 0, time.UTC),
	Acknowledged: time.Date(2026, 12, 1, 12, 5, 0, 0, time.UTC),
	Input:        json.RawMessage(`{"ref":"e12"}`), Locator: `role=button[name="Pay"]`}

// exampleOperationHere is an operation of the host that answers, beside
// exampleOperation, another host's.
var exampleOperationHere = Operation{ID: "op-2a3b", Session: "work", Generation: 4, Host: "web-3/5f1c0a9e2b7d", Op: "type", Action: "input",
	Digest: "0a1b2c3d4e5f6a7b", State: "executed", Reserved: time.Date(2026, 12, 1, 12, 1, 0, 0, time.UTC), Settled: time.Date(2026, 12, 1, 12, 1, 0, 0, time.UTC)}

var exampleGrant = Grant{ID: "g-1f2e3d4c5b6a7988", Session: "default", Task: "research", Generation: "7",
	Tabs: []string{"s1", "s4"}, Expires: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}

var exampleApproval = Approval{ID: "a1", OperationID: "op-1f2e", Op: "click", Action: "input", Session: "work", Client: "mcp-42", Task: "t1", Target: "e12",
	SurfaceID: "s1", Page: "s1", Origin: "https://pay.bank.example", Digest: "9a1b2c3d4e5f6a7b", Rule: "input on https://*.bank.example",
	Asked: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Locator: `role=button[name="Pay"]`, Element: `button "Pay" [ref=e12]`, Input: json.RawMessage(`{"ref":"e12"}`)}

// Without a HAR written, network lists its records.
func TestNetworkOutListsRecords(t *testing.T) {
	o := examples()["NetworkOut"].(*NetworkOut)
	o.HAR = nil
	if got := o.Text(); !strings.HasPrefix(got, "[s1] GET failed (net::ERR_ABORTED) 12.5ms Fetch https://example.com/api") {
		t.Errorf("%q", got)
	}
}
