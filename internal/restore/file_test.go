package restore_test

import (
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/viewport"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sample() map[string]restore.Session {
	return map[string]restore.Session{
		"default": {Surfaces: 7, Refs: 120, Tabs: []restore.Entry{
			{URL: "about:blank"},
			{Task: "research", URL: "https://example.test/a?q=1", Title: "A page", Viewport: &viewport.Viewport{Width: 390, Height: 844, Scale: 3, Mobile: true}},
			{Task: "cli", Title: "Report", Preview: "/home/me/report.html"},
		}},
		"work":  {Tabs: []restore.Entry{{URL: "https://example.test/", Title: "Work"}}},
		"ids":   {Surfaces: 3, Refs: 9}, // no tab left, ids still kept
		"empty": {},
	}
}

// TestEncodeGolden: the file format, byte for byte, and back.
func TestEncodeGolden(t *testing.T) {
	t.Parallel()
	got, err := restore.Encode(restore.State{Clean: true, Sessions: sample()})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tabs.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("encoded:\n%s\nwant:\n%s", got, want)
	}
	back, err := restore.Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	exp := restore.State{Clean: true, Sessions: sample()}
	delete(exp.Sessions, "empty")
	if !reflect.DeepEqual(back, exp) {
		t.Fatalf("decoded %+v, want %+v", back, exp)
	}
}

// TestDecodeRefuses: a file that breaks a rule is refused whole, one of
// another version holds nothing.
func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", restore.MaxTitle+1)
	many := `{"version":1,"sessions":{"s":{"tabs":[` + strings.TrimSuffix(strings.Repeat(`{"url":"about:blank"},`, restore.MaxTabs+1), ",") + `]}}}`
	tab := func(entry string) string { return `{"version":1,"sessions":{"s":{"tabs":[` + entry + `]}}}` }
	for name, in := range map[string]string{
		"not json":         `{`,
		"two values":       `{"version":1,"sessions":{}} {}`,
		"unknown field":    `{"version":1,"sessions":{},"grants":["g1"]}`,
		"file url":         tab(`{"url":"file:///etc/passwd"}`),
		"javascript url":   tab(`{"url":"javascript:alert(1)"}`),
		"relative preview": tab(`{"preview":"report.html"}`),
		"preview address":  tab(`{"url":"http://127.0.0.1:1/p/T/a.html","preview":"/a.html"}`),
		"no address":       tab(`{"title":"x"}`),
		"long title":       tab(`{"url":"about:blank","title":"` + long + `"}`),
		"tiny viewport":    tab(`{"url":"about:blank","viewport":{"width":1,"height":1}}`),
		"too many tabs":    many,
	} {
		if got, err := restore.Decode([]byte(in)); err == nil {
			t.Errorf("%s: decoded %v, want an error", name, got)
		}
	}
	got, err := restore.Decode([]byte(`{"version":2,"sessions":{"s":[{"url":"https://a.test/"}]}}`))
	if err != nil || got.Sessions != nil {
		t.Errorf("another version: %v, %v; want nothing and no error", got, err)
	}
}

// TestRecorderWritesChanges: a touch writes the state when it changed,
// not otherwise; Stop writes a last time and later touches write nothing.
func TestRecorderWritesChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tabs.json")
	state := make(chan map[string]restore.Session, 1)
	var cur map[string]restore.Session
	r := restore.NewRecorder(path, func() map[string]restore.Session {
		select {
		case cur = <-state:
		default:
		}
		return cur
	}, slog.New(slog.NewTextHandler(t.Output(), nil)))
	state <- sample()
	r.Flush()
	first, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if first.Mode().Perm() != 0o600 {
		t.Errorf("tabs file mode %v, want 0600", first.Mode().Perm())
	}
	got, err := restore.Read(path)
	if err != nil || len(got.Sessions["default"].Tabs) != 3 || got.Sessions["default"].Refs != 120 || got.Clean {
		t.Fatalf("read back %+v, %v", got, err)
	}
	// The same state again: the file is not rewritten (same inode).
	r.Flush()
	again, _ := os.Stat(path)
	if !os.SameFile(first, again) {
		t.Error("an unchanged state was written again")
	}
	state <- map[string]restore.Session{"default": {Tabs: []restore.Entry{{URL: "https://example.test/"}}}}
	r.Stop()
	got, _ = restore.Read(path)
	if len(got.Sessions) != 1 || len(got.Sessions["default"].Tabs) != 1 || !got.Clean {
		t.Fatalf("after Stop the file holds %+v", got)
	}
	state <- nil
	r.Touch()
	r.Flush()
	r.Stop()
	if got, _ = restore.Read(path); len(got.Sessions) != 1 {
		t.Fatalf("a touch or flush after Stop wrote %+v", got)
	}
}

// TestReadRefusesSymlink: the file is never read through a symlink.
func TestReadRefusesSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.json")
	data, _ := restore.Encode(restore.State{Sessions: sample()})
	if err := os.WriteFile(target, data, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "tabs.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if got, err := restore.Read(link); err == nil {
		t.Fatalf("read %v through a symlink", got)
	}
	if got, err := restore.Read(filepath.Join(dir, "missing.json")); err != nil || got.Sessions != nil || !got.Clean {
		t.Fatalf("a missing file: %v, %v", got, err)
	}
}

// FuzzDecode: whatever a file holds, Decode either refuses it or returns
// entries that keep every rule, and they encode and decode to themselves.
func FuzzDecode(f *testing.F) {
	seed, _ := restore.Encode(restore.State{Sessions: sample()})
	f.Add(seed)
	f.Add([]byte(`{"version":1,"sessions":{"s":{"tabs":[{"url":"http://[::1]:80/"}]}}}`))
	f.Add([]byte(`{"version":1,"clean":true,"sessions":{"s":{"refs":9007199254740992,"tabs":[{"url":"about:blank","viewport":{"width":100,"height":10000,"scale":10}}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := restore.Decode(data)
		if err != nil || got.Sessions == nil {
			return
		}
		for _, s := range got.Sessions {
			if len(s.Tabs) > restore.MaxTabs || s.Refs < 0 || s.Surfaces < 0 {
				t.Fatalf("kept %+v", s)
			}
			for _, e := range s.Tabs {
				if e.Preview == "" && !restore.Keepable(e.URL) {
					t.Fatalf("kept %q", e.URL)
				}
			}
		}
		enc, err := restore.Encode(got)
		if err != nil {
			t.Fatal(err)
		}
		back, err := restore.Decode(enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if !reflect.DeepEqual(back, got) {
			t.Fatalf("round trip: %+v vs %+v", back, got)
		}
	})
}
