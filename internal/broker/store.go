package broker

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"
)

// StoreFile is the token store's file name under LOUPE_HOME.
const StoreFile = "broker-hosts.json"

// tokenPrefix starts every token, so that one is recognisable in a leak
// scan and never mistaken for another secret of loupe's.
const tokenPrefix = "lbt_"

// lastUsedEvery is how stale a host's last use may be on disk: a use is
// written when the one on disk is older, so a busy agent does not rewrite
// the file on every call.
const lastUsedEvery = time.Minute

var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// HostRule says what a host name may be.
const HostRule = "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"

// ValidHost reports whether name can name a host connection.
func ValidHost(name string) bool { return hostName.MatchString(name) }

// Host is one host connection as the store keeps it: its current
// generation and the SHA-256 of that generation's token, never the token.
type Host struct {
	Name       string    `json:"name"`
	Generation int64     `json:"generation"`
	TokenHash  string    `json:"token_sha256,omitempty"` // "" once revoked
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"last_used,omitzero"`
	Revoked    time.Time `json:"revoked,omitzero"`
}

// Store keeps the hosts' tokens in a file (mode 0600, replaced
// atomically) under LOUPE_HOME, not in the ledger: the ledger records
// what agents did and is read by people and tools, and a credential —
// even hashed — has no place in it; a file of its own is also readable
// with nothing but cat and removable to revoke every host at once. The
// daemon holds the only Store of a home; it is safe for concurrent use.
type Store struct {
	path string
	now  func() time.Time

	mu    sync.Mutex
	hosts map[string]*Host
	saved map[string]time.Time // last use as on disk
}

// OpenStore reads the store at path (a missing file is an empty store);
// now nil is time.Now.
func OpenStore(path string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	s := &Store{path: path, now: now, hosts: map[string]*Host{}, saved: map[string]time.Time{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("broker: reading %s: %w", path, err)
	}
	var hosts []*Host
	if err := json.Unmarshal(b, &hosts); err != nil {
		return nil, fmt.Errorf("broker: %s is not a host list (remove it to revoke every host): %w", path, err)
	}
	for _, h := range hosts {
		s.hosts[h.Name] = h
		s.saved[h.Name] = h.LastUsed
	}
	return s, nil
}

// Register mints a token for a host connection: a new host's generation
// is 1, a known host's the next one, and its old token is refused from
// now on. The token is returned once and kept only as its hash.
func (s *Store) Register(name string) (token string, h Host, err error) {
	if !ValidHost(name) {
		return "", Host{}, fmt.Errorf("host name %q: %s", name, HostRule)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", Host{}, fmt.Errorf("broker: minting a token: %w", err)
	}
	token = tokenPrefix + hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.hosts[name]
	n := &Host{Name: name, Generation: 1, TokenHash: hashToken(token), Created: s.now().UTC()}
	if old != nil {
		n.Generation = old.Generation + 1
	}
	s.hosts[name] = n
	if err := s.saveLocked(); err != nil {
		if old != nil {
			s.hosts[name] = old
		} else {
			delete(s.hosts, name)
		}
		return "", Host{}, err
	}
	return token, *n, nil
}

// Revoke refuses the host's current token from now on; the host stays
// listed, with its generation, until it registers again.
func (s *Store) Revoke(name string) (Host, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[name]
	if h == nil {
		return Host{}, fmt.Errorf("no host %q is registered", name)
	}
	old := *h
	h.TokenHash, h.Revoked = "", s.now().UTC()
	if err := s.saveLocked(); err != nil {
		*h = old
		return Host{}, err
	}
	return *h, nil
}

// Hosts lists the hosts by name.
func (s *Store) Hosts() []Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Host, 0, len(s.hosts))
	for _, h := range s.hosts {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Authenticate finds the host whose current token this is, and records
// its use. The token's hash is compared with every host's in constant
// time, so neither the time taken nor an early exit tells a caller how
// close a guess came, or which host it was near.
func (s *Store) Authenticate(token string) (Host, bool) {
	if token == "" {
		return Host{}, false
	}
	sum := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *Host
	for _, h := range s.hosts {
		want, err := hex.DecodeString(h.TokenHash)
		if err != nil || len(want) != len(sum) {
			continue
		}
		if subtle.ConstantTimeCompare(sum[:], want) == 1 {
			found = h
		}
	}
	if found == nil {
		return Host{}, false
	}
	now := s.now().UTC()
	found.LastUsed = now
	if now.Sub(s.saved[found.Name]) >= lastUsedEvery {
		_ = s.saveLocked() // a last use not written is no reason to refuse the call
	}
	return *found, true
}

// saveLocked replaces the file: written to a temporary file of mode 0600
// in the same directory, synced, then renamed over it. Caller holds s.mu.
func (s *Store) saveLocked() error {
	hosts := make([]*Host, 0, len(s.hosts))
	for _, h := range s.hosts {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	b, err := json.MarshalIndent(hosts, "", "  ")
	if err != nil {
		return fmt.Errorf("broker: encoding hosts: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(s.path), ".broker-hosts-*")
	if err != nil {
		return fmt.Errorf("broker: writing hosts: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename, nothing is there
	if err := f.Chmod(0o600); err == nil {
		_, err = f.Write(append(b, '\n'))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, s.path)
		}
		if err != nil {
			return fmt.Errorf("broker: writing %s: %w", s.path, err)
		}
	} else {
		f.Close()
		return fmt.Errorf("broker: writing hosts: %w", err)
	}
	for _, h := range hosts {
		s.saved[h.Name] = h.LastUsed
	}
	return nil
}

// hashToken is the hex SHA-256 of a token: a token is 256 random bits,
// so a plain hash (no salt, no stretching) cannot be reversed.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
