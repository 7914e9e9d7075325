package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreDefaultsSetAndReread(t *testing.T) {
	home := t.TempDir()
	s := Open(home)
	v, err := s.Get()
	if err != nil || v != Defaults() || !v.ControlEnabled || v.IgnoreCertificateErrors {
		t.Fatalf("defaults: %+v %v", v, err)
	}
	if v, err = s.Set("ignoreCertificateErrors", "true"); err != nil || !v.IgnoreCertificateErrors || !v.ControlEnabled {
		t.Fatalf("set: %+v %v", v, err)
	}
	// Another process's store of the same home sees it, and a change it
	// makes is seen here.
	other := Open(home)
	if v, _ := other.Get(); !v.IgnoreCertificateErrors {
		t.Fatal("another store does not read the change")
	}
	if _, err := other.Set("controlEnabled", "false"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get(); v.ControlEnabled {
		t.Fatal("the first store does not see the other's change")
	}
	fi, err := os.Stat(filepath.Join(home, File))
	if err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("settings file mode: %v %v", fi.Mode(), err)
	}
}

func TestStoreRefusesBadInput(t *testing.T) {
	s := Open(t.TempDir())
	for _, c := range []struct{ key, value, want string }{
		{"controlenabled", "true", "did you mean controlEnabled"},
		{"theme", "dark", "the settings are controlEnabled, ignoreCertificateErrors"},
		{"controlEnabled", "yes", "want true or false"},
		{"controlEnabled", "1", "want true or false"},
	} {
		_, err := s.Set(c.key, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Set(%q, %q): %v, want %q", c.key, c.value, err, c.want)
		}
	}
	if _, err := os.Stat(s.Path()); err == nil {
		t.Fatal("a refused change wrote the file")
	}
	// A broken file is an error, and what was in force stays.
	if err := os.WriteFile(s.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := s.Get()
	if err == nil || v != Defaults() {
		t.Fatalf("a broken file: %+v %v", v, err)
	}
}
