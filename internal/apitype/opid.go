package apitype

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
)

var opIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// ValidOperationID reports whether id can name a write: 1 to 64 letters,
// digits, '.', '_', ':' or '-'.
func ValidOperationID(id string) bool { return opIDRE.MatchString(id) }

// NewOperationID is a fresh operation id: 96 random bits. A client picks
// one before it sends a write, so that it can name the write even when
// the reply never comes.
func NewOperationID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "op-" + hex.EncodeToString(b[:])
}
