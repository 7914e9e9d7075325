// Package cookies reads a person's sign-in state from a Chrome or
// Chromium profile: the cookies of its Cookies database (SQLite), their
// values decrypted as Chrome encrypted them. Passwords are never read.
//
// Encryption (Chrome's os_crypt): on Linux a value starts with "v10"
// (AES-128-CBC under a key derived from the fixed password "peanuts") or
// "v11" (the same under a password kept in the desktop keyring, read here
// with secret-tool where it is installed); Chrome 130 and later put the
// SHA-256 of the cookie's host before the plaintext (database version 24
// and up). macOS ("v10" under a Keychain password, 1003 PBKDF2 rounds)
// follows the same scheme given the Keychain's password (Keys), which
// this package does not read; Windows' DPAPI and App-Bound ("v20") values
// cannot be read by another program and are skipped. Only the Linux
// paths are tested here.
package cookies

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/loupe-dev/loupe/internal/secret"
)

// Cookie is one cookie read from a profile, decrypted.
type Cookie struct {
	Domain   string
	Name     string
	Value    secret.String // what a person's sign-in rests on
	Path     string
	Expires  time.Time // zero: a session cookie
	Secure   bool
	HTTPOnly bool
	SameSite string // "Strict", "Lax", "None" or "" (unspecified)
}

// Result is what an import read: the cookies it could use, and how many
// rows it skipped, by why.
type Result struct {
	Cookies []Cookie
	// Expired, AppBound (v20: only Chrome itself may read them) and
	// Undecryptable (no key for them, or a value that does not decrypt)
	// count the rows left out.
	Expired, AppBound, Undecryptable int
}

// Keys are the passwords values may be encrypted under, by prefix.
type Keys struct {
	V10, V11   string // "" V11: no keyring password known
	Iterations int    // PBKDF2 rounds: 1 on Linux, 1003 on macOS
}

// LinuxKeys are Chrome's Linux keys: "peanuts" for v10, and for v11 the
// keyring's password when secret-tool can give it (a desktop session with
// a keyring), else none.
func LinuxKeys(ctx context.Context) Keys {
	k := Keys{V10: "peanuts", Iterations: 1}
	for _, app := range []string{"chrome", "chromium"} {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		out, err := exec.CommandContext(cctx, "secret-tool", "lookup", "application", app).Output()
		cancel()
		if err == nil && len(strings.TrimSpace(string(out))) > 0 {
			k.V11 = strings.TrimSpace(string(out))
			break
		}
	}
	return k
}

// FindProfile returns the Cookies database of the newest Chrome or
// Chromium profile under the user's configuration directory: the one
// changed last.
func FindProfile() (string, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	var best string
	var bestMod time.Time
	for _, browser := range []string{"google-chrome", "google-chrome-beta", "chromium", "google-chrome-unstable"} {
		dirs, _ := filepath.Glob(filepath.Join(cfg, browser, "*"))
		for _, d := range dirs {
			if p, fi := cookiesFile(d); p != "" && fi.ModTime().After(bestMod) {
				best, bestMod = p, fi.ModTime()
			}
		}
	}
	if best == "" {
		return "", errors.New("no Chrome or Chromium profile with cookies under " + cfg)
	}
	return best, nil
}

// CookiesFile returns the Cookies database of a profile directory (or the
// path itself when it is the database).
func CookiesFile(dir string) (string, error) {
	if fi, err := os.Stat(dir); err == nil && fi.Mode().IsRegular() {
		return dir, nil
	}
	if p, _ := cookiesFile(dir); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%s: no Cookies database in this profile", dir)
}

func cookiesFile(dir string) (string, os.FileInfo) {
	for _, p := range []string{filepath.Join(dir, "Network", "Cookies"), filepath.Join(dir, "Cookies")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, fi
		}
	}
	return "", nil
}

// Read reads every cookie of a Cookies database. The database is copied
// first, so a running browser's lock or journal is no matter.
func Read(ctx context.Context, path string, keys Keys, now time.Time) (*Result, error) {
	tmp, err := copyToTemp(path)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	db, err := sql.Open("sqlite", "file:"+tmp+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	version := 0
	_ = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'version'`).Scan(&version)
	rows, err := db.QueryContext(ctx, `SELECT host_key, name, value, encrypted_value, path, expires_utc, has_expires, is_secure, is_httponly, samesite FROM cookies`)
	if err != nil {
		return nil, fmt.Errorf("%s is not a Chrome Cookies database: %w", path, err)
	}
	defer rows.Close()
	r := &Result{}
	for rows.Next() {
		var (
			c                 Cookie
			plain             string
			enc               []byte
			expires           int64
			hasExp, sec, http bool
			sameSite          int
		)
		if err := rows.Scan(&c.Domain, &c.Name, &plain, &enc, &c.Path, &expires, &hasExp, &sec, &http, &sameSite); err != nil {
			return nil, err
		}
		c.Secure, c.HTTPOnly = sec, http
		if hasExp {
			c.Expires = chromeTime(expires)
			if !c.Expires.After(now) {
				r.Expired++
				continue
			}
		}
		c.SameSite = map[int]string{0: "None", 1: "Lax", 2: "Strict"}[sameSite]
		switch {
		case len(enc) == 0:
			c.Value = secret.String(plain)
		case hasPrefix(enc, "v20"):
			r.AppBound++
			continue
		default:
			v, err := Decrypt(enc, c.Domain, version, keys)
			if err != nil {
				r.Undecryptable++
				continue
			}
			c.Value = secret.String(v)
		}
		r.Cookies = append(r.Cookies, c)
	}
	return r, rows.Err()
}

// chromeTime converts Chrome's microseconds since 1601-01-01 UTC.
func chromeTime(us int64) time.Time {
	const epochDelta = 11644473600 // seconds from 1601 to 1970
	return time.Unix(us/1e6-epochDelta, (us%1e6)*1e3).UTC()
}

// ChromeTime is the inverse of chromeTime (for tests that write a
// database as Chrome would).
func ChromeTime(t time.Time) int64 {
	return (t.Unix()+11644473600)*1e6 + int64(t.Nanosecond()/1e3)
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// Decrypt decrypts one encrypted_value: "v10" or "v11", AES-128-CBC with
// a 16-space IV under PBKDF2-SHA1(password, "saltysalt", Iterations, 16).
// From database version 24 on, the plaintext starts with the SHA-256 of
// the cookie's domain, checked and dropped.
func Decrypt(enc []byte, domain string, version int, keys Keys) (string, error) {
	var password string
	switch {
	case hasPrefix(enc, "v10"):
		password = keys.V10
	case hasPrefix(enc, "v11"):
		password = keys.V11
	default:
		return "", errors.New("cookies: not a v10 or v11 value")
	}
	if password == "" {
		return "", errors.New("cookies: no key for this value")
	}
	block, err := aes.NewCipher(key(password, keys.Iterations))
	if err != nil {
		return "", err
	}
	data := enc[3:]
	if len(data) == 0 || len(data)%aes.BlockSize != 0 {
		return "", errors.New("cookies: a value of no whole block")
	}
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv()).CryptBlocks(out, data)
	n := int(out[len(out)-1])
	if n < 1 || n > aes.BlockSize || n > len(out) {
		return "", errors.New("cookies: bad padding (a wrong key)")
	}
	for _, b := range out[len(out)-n:] {
		if int(b) != n {
			return "", errors.New("cookies: bad padding (a wrong key)")
		}
	}
	out = out[:len(out)-n]
	if version >= 24 {
		h := sha256.Sum256([]byte(domain))
		if len(out) < len(h) || string(out[:len(h)]) != string(h[:]) {
			return "", errors.New("cookies: the value is not this domain's")
		}
		out = out[len(h):]
	}
	return string(out), nil
}

// Encrypt encrypts a value as Chrome does (for tests that write a
// database of their own).
func Encrypt(value, domain string, version int, prefix, password string, iterations int) []byte {
	plain := []byte(value)
	if version >= 24 {
		h := sha256.Sum256([]byte(domain))
		plain = append(h[:], plain...)
	}
	n := aes.BlockSize - len(plain)%aes.BlockSize
	for range n {
		plain = append(plain, byte(n))
	}
	block, _ := aes.NewCipher(key(password, iterations))
	out := make([]byte, len(plain))
	cipher.NewCBCEncrypter(block, iv()).CryptBlocks(out, plain)
	return append([]byte(prefix), out...)
}

func key(password string, iterations int) []byte {
	if iterations < 1 {
		iterations = 1
	}
	k, _ := pbkdf2.Key(sha1.New, password, []byte("saltysalt"), iterations, 16)
	return k
}

func iv() []byte { return []byte(strings.Repeat(" ", aes.BlockSize)) }

func copyToTemp(path string) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp("", "loupe-cookies-*.db")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), out.Close()
}
