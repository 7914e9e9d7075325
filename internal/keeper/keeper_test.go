package keeper

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// fakeMarks is the ledger's id marks in memory.
type fakeMarks struct{ m map[string]ledger.IDMarks }

func (f *fakeMarks) IDs(context.Context) (map[string]ledger.IDMarks, error) {
	out := map[string]ledger.IDMarks{}
	for k, v := range f.m {
		out[k] = v
	}
	return out, nil
}

func (f *fakeMarks) KeepIDs(_ context.Context, s string, m ledger.IDMarks) error {
	f.m[s] = m
	return nil
}

func start(t *testing.T, path string, marks *fakeMarks) (*Keeper, *sessions.Manager) {
	t.Helper()
	sm := sessions.New(sessions.Config{Home: t.TempDir()})
	k := Start(Config{Path: path, Sessions: sm, Events: events.New(), Marks: marks,
		Owner: func(string, string) string { return "" }, Claim: func(string, string, string) {},
		Showing: func(string, string) (string, bool) { return "", false },
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(k.Stop)
	return k, sm
}

// A session's numbering starts past the higher of the tabs file's and the
// ledger's marks; past a margin more when the stop was not clean or the
// ledger is ahead of the file (the file is behind: lost, or a write
// missed); Flush and Stop write the marks that moved on, to both.
func TestNumberingStartsPastTheKeptMarks(t *testing.T) {
	for _, c := range []struct {
		name         string
		clean        bool
		file, ledger ledger.IDMarks
		wantS, wantR int64
	}{
		{"clean, file ahead", true, ledger.IDMarks{Surfaces: 7, Refs: 40}, ledger.IDMarks{Surfaces: 7, Refs: 30}, 7, 40},
		{"unclean stop", false, ledger.IDMarks{Surfaces: 7, Refs: 40}, ledger.IDMarks{}, 7 + uncleanSkip, 40},
		{"ledger ahead of the file", true, ledger.IDMarks{Surfaces: 2, Refs: 5}, ledger.IDMarks{Surfaces: 9, Refs: 50}, 9 + uncleanSkip, 50},
		{"no file, ledger only", true, ledger.IDMarks{}, ledger.IDMarks{Surfaces: 3, Refs: 8}, 3 + uncleanSkip, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tabs.json")
			if c.file != (ledger.IDMarks{}) {
				data, err := restore.Encode(restore.State{Clean: c.clean, Sessions: map[string]restore.Session{"work": {Surfaces: c.file.Surfaces, Refs: c.file.Refs}}})
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			marks := &fakeMarks{m: map[string]ledger.IDMarks{}}
			if c.ledger != (ledger.IDMarks{}) {
				marks.m["work"] = c.ledger
			}
			k, sm := start(t, path, marks)
			s, r := sm.Get("work").IDs().Last()
			if s != c.wantS || r != c.wantR {
				t.Fatalf("numbering starts past %d surfaces, %d refs; want %d, %d", s, r, c.wantS, c.wantR)
			}
			if k.Keeps("work") {
				t.Error("a session with no kept tabs keeps some")
			}
			k.Flush()
			if got := marks.m["work"]; got.Surfaces != c.wantS || got.Refs != c.wantR {
				t.Errorf("the ledger's marks after a flush: %+v", got)
			}
			st, err := restore.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Sessions["work"]; got.Surfaces != c.wantS || got.Refs != c.wantR {
				t.Errorf("the tabs file after a flush: %+v", got)
			}
		})
	}
}

// A tabs file that cannot be read is rewritten, and numbering goes on
// from the ledger.
func TestUnreadableTabsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tabs.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	k, sm := start(t, path, &fakeMarks{m: map[string]ledger.IDMarks{"work": {Surfaces: 4, Refs: 9}}})
	if s, r := sm.Get("work").IDs().Last(); s < 4 || r != 9 {
		t.Fatalf("numbering starts past %d, %d", s, r)
	}
	k.Flush()
	if _, err := restore.Read(path); err != nil {
		t.Fatalf("the file was not rewritten: %v", err)
	}
}
