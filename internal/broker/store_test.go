package broker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStoreMintRotateRevoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), StoreFile)
	s, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok1, h, err := s.Register("h1")
	if err != nil || h.Generation != 1 {
		t.Fatalf("register: %v %+v", err, h)
	}
	if got, ok := s.Authenticate(tok1); !ok || got.Name != "h1" || got.Generation != 1 {
		t.Fatalf("token 1 refused: %+v %v", got, ok)
	}
	tok2, h, err := s.Register("h1")
	if err != nil || h.Generation != 2 || tok2 == tok1 {
		t.Fatalf("rotate: %v %+v", err, h)
	}
	if _, ok := s.Authenticate(tok1); ok {
		t.Fatal("the old generation's token is still accepted")
	}
	if got, ok := s.Authenticate(tok2); !ok || got.Generation != 2 || got.LastUsed.IsZero() {
		t.Fatalf("token 2: %+v %v", got, ok)
	}
	for _, bad := range []string{"", "x", tok2 + "x", strings.ToUpper(tok2)} {
		if _, ok := s.Authenticate(bad); ok {
			t.Fatalf("token %q accepted", bad)
		}
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), tok2) || strings.Contains(string(b), tok1) || !strings.Contains(string(b), hashToken(tok2)) {
		t.Fatalf("the file must hold the token's hash, never the token:\n%s", b)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, want 0600 (%v)", fi.Mode().Perm(), err)
	}

	// Reopened, the store still knows the host and its token.
	s2, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s2.Authenticate(tok2); !ok {
		t.Fatal("a reopened store refuses the current token")
	}
	h, err = s2.Revoke("h1")
	if err != nil || h.Revoked.IsZero() || h.Generation != 2 {
		t.Fatalf("revoke: %v %+v", err, h)
	}
	if _, ok := s2.Authenticate(tok2); ok {
		t.Fatal("a revoked token is accepted")
	}
	if _, err := s2.Revoke("nobody"); err == nil {
		t.Fatal("revoking an unknown host succeeded")
	}
	tok3, h, err := s2.Register("h1")
	if err != nil || h.Generation != 3 || !h.Revoked.IsZero() {
		t.Fatalf("register after revoke: %v %+v", err, h)
	}
	if _, ok := s2.Authenticate(tok3); !ok {
		t.Fatal("the new token is refused")
	}
	if hs := s2.Hosts(); len(hs) != 1 || hs[0].Name != "h1" {
		t.Fatalf("hosts: %+v", hs)
	}
	if _, _, err := s2.Register("bad name"); err == nil {
		t.Fatal("a bad host name was registered")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".broker-hosts-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestStoreLastUseIsWrittenSparingly: a use is written when the one on
// disk is older than lastUsedEvery, not on every call.
func TestStoreLastUseIsWrittenSparingly(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), StoreFile)
	s, err := OpenStore(path, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := s.Register("h1")
	if err != nil {
		t.Fatal(err)
	}
	lastOnDisk := func() time.Time {
		s2, err := OpenStore(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s2.Hosts()[0].LastUsed
	}
	s.Authenticate(tok)
	if got := lastOnDisk(); !got.Equal(now) {
		t.Fatalf("first use on disk: %v", got)
	}
	now = now.Add(time.Second)
	s.Authenticate(tok)
	if got := lastOnDisk(); !got.Equal(now.Add(-time.Second)) {
		t.Fatalf("a use a second later was written: %v", got)
	}
	now = now.Add(lastUsedEvery)
	s.Authenticate(tok)
	if got := lastOnDisk(); !got.Equal(now) {
		t.Fatalf("a use a minute later was not written: %v", got)
	}
}
