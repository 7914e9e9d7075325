// Package restore keeps a session's tabs across daemon restarts. The
// daemon writes each launched browser's tabs — owner task, address, title,
// order, viewport preference, the file a preview shows — to one file in
// LOUPE_HOME; the next daemon brings them back as placeholders: real tabs
// at about:blank that load their address when an operation first works in
// them, so a restart does not load every page at once.
//
// What is kept is what a person would call the tab, never what could act
// by itself: no grants, no refs, no form state, no preview token (a
// preview is kept by its file and authorised afresh when it loads), and
// nothing of a temp: partition, whose tabs are gone by design. Only web
// addresses (http, https) and about:blank are kept; a tab at a file:,
// data: or chrome: address is not restored.
package restore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/internal/viewport"
)

// Version is the file format's version; a file of another is ignored.
const Version = 1

// Bounds on what a file may hold: the tabs a window allows, and the
// lengths the outputs bound page strings to anyway. A file beyond them
// was not written by loupe and is refused whole.
const (
	MaxTabs     = 32
	MaxURL      = 8 << 10
	MaxTitle    = 1 << 10
	MaxTask     = 128
	MaxFile     = 1 << 20
	MaxSessions = 256
	maxID       = 1 << 53 // counters beyond it were not written by loupe
)

// Session is what is kept of one session: its tabs, in order, and the
// last surface and ref numbers it drew, so that the next daemon never
// draws them again (a ref from before a restart is refused as gone, never
// acted on).
type Session struct {
	Tabs     []Entry `json:"tabs,omitempty"`
	Surfaces int64   `json:"surfaces,omitempty"`
	Refs     int64   `json:"refs,omitempty"`
}

// empty: the session keeps nothing (and is left out of the file).
func (s Session) empty() bool { return len(s.Tabs) == 0 && s.Surfaces == 0 && s.Refs == 0 }

// State is the whole file: every session, and whether the daemon that
// wrote it stopped cleanly (a killed one may have handed out a surface id
// in an event after its last write; the next one skips a margin).
type State struct {
	Clean    bool
	Sessions map[string]Session
}

// Entry is one tab as it is kept.
type Entry struct {
	Task     string             `json:"task,omitempty"` // the task that owned it ("" for a shared tab)
	URL      string             `json:"url,omitempty"`  // "" for a preview
	Title    string             `json:"title,omitempty"`
	Preview  string             `json:"preview,omitempty"` // the absolute path of the file a preview showed
	Viewport *viewport.Viewport `json:"viewport,omitempty"`
}

// Keepable reports whether a tab at this address is kept: web pages and
// blank tabs are; local, data and browser pages are not (an agent may not
// be allowed to open them, and a restart must not open them for it).
func Keepable(address string) bool {
	if address == "about:blank" {
		return true
	}
	u, err := url.Parse(address)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// file is the format on disk.
type file struct {
	Version  int                `json:"version"`
	Clean    bool               `json:"clean,omitempty"`
	Sessions map[string]Session `json:"sessions"`
}

// Encode is the file's bytes for a state (sessions that keep nothing are
// left out).
func Encode(st State) ([]byte, error) {
	f := file{Version: Version, Clean: st.Clean, Sessions: map[string]Session{}}
	for name, s := range st.Sessions {
		if !s.empty() {
			f.Sessions[name] = s
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode reads a file's bytes. A file of another version holds nothing
// loupe can use (no sessions, no error); one that breaks a bound or a
// rule is refused whole, with what is wrong.
func Decode(data []byte) (State, error) {
	if len(data) > MaxFile {
		return State{}, fmt.Errorf("tabs file: %d bytes, more than %d", len(data), MaxFile)
	}
	// Another version's layout is its own: only its number is read.
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return State{}, fmt.Errorf("tabs file: %w", err)
	}
	if v.Version != Version {
		return State{}, nil
	}
	var f file
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return State{}, fmt.Errorf("tabs file: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return State{}, errors.New("tabs file: more than one JSON value")
	}
	if len(f.Sessions) > MaxSessions {
		return State{}, fmt.Errorf("tabs file: %d sessions, more than %d", len(f.Sessions), MaxSessions)
	}
	for name, s := range f.Sessions {
		if len(name) > MaxTask || !utf8.ValidString(name) {
			return State{}, fmt.Errorf("tabs file: a session name of %d bytes", len(name))
		}
		if len(s.Tabs) > MaxTabs {
			return State{}, fmt.Errorf("tabs file: session %.64q has %d tabs, more than %d", name, len(s.Tabs), MaxTabs)
		}
		if s.Surfaces < 0 || s.Surfaces > maxID || s.Refs < 0 || s.Refs > maxID {
			return State{}, fmt.Errorf("tabs file: session %.64q: id counters %d and %d out of range", name, s.Surfaces, s.Refs)
		}
		for i, e := range s.Tabs {
			if err := e.check(); err != nil {
				return State{}, fmt.Errorf("tabs file: session %.64q, tab %d: %w", name, i+1, err)
			}
		}
		if len(s.Tabs) == 0 {
			s.Tabs = nil // as a state that never had any
			f.Sessions[name] = s
		}
		if s.empty() {
			delete(f.Sessions, name) // as Encode leaves it out
		}
	}
	return State{Clean: f.Clean, Sessions: f.Sessions}, nil
}

func (e Entry) check() error {
	for _, s := range []struct {
		what, v string
		max     int
	}{{"task", e.Task, MaxTask}, {"url", e.URL, MaxURL}, {"title", e.Title, MaxTitle}, {"preview", e.Preview, MaxURL}} {
		if len(s.v) > s.max {
			return fmt.Errorf("%s of %d bytes, more than %d", s.what, len(s.v), s.max)
		}
		if !utf8.ValidString(s.v) {
			return fmt.Errorf("%s is not UTF-8", s.what)
		}
	}
	if e.Preview != "" && !filepath.IsAbs(e.Preview) {
		return fmt.Errorf("preview %.64q is not an absolute path", e.Preview)
	}
	if e.Preview != "" && e.URL != "" {
		return errors.New("a preview is kept by its file, never by its address (its token dies with the daemon)")
	}
	if e.Preview == "" && !Keepable(e.URL) {
		return fmt.Errorf("url %.64q is not a web address", e.URL)
	}
	if e.Viewport != nil {
		if err := e.Viewport.Check(); err != nil {
			return err
		}
	}
	return nil
}

// Read reads the tabs file; a missing one holds nothing (and counts as
// clean). The file is opened without following a symlink.
func Read(path string) (State, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Clean: true}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("tabs file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return State{}, fmt.Errorf("tabs file: %w", err)
	}
	return Decode(data)
}

// write replaces the file whole, by rename, so that a reader (or the next
// daemon after a crash) never sees half of it. It is written readable
// only by its user.
func write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tabs-*.json")
	if err != nil {
		return fmt.Errorf("tabs file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("tabs file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("tabs file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tabs file: %w", err)
	}
	return nil
}
