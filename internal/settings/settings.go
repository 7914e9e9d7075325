// Package settings keeps the person's browser-control settings in
// settings.json in LOUPE_HOME: whether agents may control the browser at
// all, and whether certificate errors are ignored. Every process of the
// home reads the same file (the daemon and each `loupe mcp`), so a change
// made through one is seen by the others at their next check, without a
// restart.
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Settings are the values; the zero value is not the default (see
// Defaults).
type Settings struct {
	// ControlEnabled off: agents get no browser tools in a new MCP session
	// and every browser write is refused (DENIED, not executed).
	ControlEnabled bool `json:"controlEnabled"`
	// IgnoreCertificateErrors on: pages with invalid certificates load,
	// in every browser context, applied to running browsers at once.
	IgnoreCertificateErrors bool `json:"ignoreCertificateErrors"`
}

// Defaults are the settings of a home without settings.json.
func Defaults() Settings { return Settings{ControlEnabled: true} }

// Keys are the settings' names, as in the file and on the command line.
var Keys = []string{"controlEnabled", "ignoreCertificateErrors"}

// File is the settings file's name in LOUPE_HOME.
const File = "settings.json"

// Store reads and writes one home's settings file. Get rereads the file
// when it changed (by its modification time and size), so it costs a
// stat.
type Store struct {
	path string

	mu    sync.Mutex
	cur   Settings
	stamp stamp
}

type stamp struct {
	mod  time.Time
	size int64
	ok   bool // the file existed
}

// Open returns the store of the settings file in home ("": a store of
// the defaults that keeps nothing).
func Open(home string) *Store {
	if home == "" {
		return &Store{cur: Defaults()}
	}
	return &Store{path: filepath.Join(home, File), cur: Defaults()}
}

// Path is the settings file's path.
func (s *Store) Path() string { return s.path }

// Get returns the settings in force: the file's, defaults for what it
// lacks; the defaults when it does not exist. A file that cannot be read
// or parsed is an error, and the settings last read stay in force.
func (s *Store) Get() (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return Defaults(), nil // no home: the defaults, kept nowhere
	}
	fi, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.cur, s.stamp = Defaults(), stamp{}
		return s.cur, nil
	case err != nil:
		return s.cur, fmt.Errorf("settings: %w", err)
	}
	st := stamp{mod: fi.ModTime(), size: fi.Size(), ok: true}
	if st == s.stamp {
		return s.cur, nil
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return s.cur, fmt.Errorf("settings: %w", err)
	}
	v := Defaults()
	if err := json.Unmarshal(b, &v); err != nil {
		return s.cur, fmt.Errorf("settings: %s is not valid JSON: %w", s.path, err)
	}
	s.cur, s.stamp = v, st
	return v, nil
}

// Set changes one setting and writes the file (whole, by rename: a reader
// never sees half of it). The value is true or false.
func (s *Store) Set(key, value string) (Settings, error) {
	if _, err := Defaults().Value(key); err != nil {
		return Settings{}, err
	}
	if value != "true" && value != "false" {
		return Settings{}, fmt.Errorf("%s: want true or false, not %q", key, value)
	}
	on := value == "true"
	if s.path == "" {
		return Defaults(), errors.New("settings: this process has no home to keep them in")
	}
	cur, err := s.Get()
	if err != nil {
		return cur, err
	}
	switch key {
	case "controlEnabled":
		cur.ControlEnabled = on
	case "ignoreCertificateErrors":
		cur.IgnoreCertificateErrors = on
	default:
		return cur, UnknownKey(key)
	}
	b, err := json.MarshalIndent(cur, "", "  ")
	if err != nil {
		return cur, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".settings-*.json")
	if err != nil {
		return cur, fmt.Errorf("settings: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return cur, fmt.Errorf("settings: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return cur, fmt.Errorf("settings: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return cur, fmt.Errorf("settings: %w", err)
	}
	return s.Get()
}

// Value is one setting's value by key.
func (v Settings) Value(key string) (bool, error) {
	switch key {
	case "controlEnabled":
		return v.ControlEnabled, nil
	case "ignoreCertificateErrors":
		return v.IgnoreCertificateErrors, nil
	}
	return false, UnknownKey(key)
}

// UnknownKey is the error for a key that is no setting: it names the one
// meant when only the case differs, else the settings there are.
func UnknownKey(key string) error {
	for _, k := range Keys {
		if strings.EqualFold(k, key) {
			return fmt.Errorf("no setting %q (did you mean %s?)", bounded(key), k)
		}
	}
	return fmt.Errorf("no setting %q; the settings are %s", bounded(key), strings.Join(Keys, ", "))
}

func bounded(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
