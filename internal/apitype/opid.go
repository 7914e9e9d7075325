package apitype

import (
	"crypto/rand"
	"encoding/hex"
)

// ValidOperationID reports whether id can name a write: 1 to 64 letters,
// digits, '.', '_', ':' or '-'.
func ValidOperationID(id string) bool {
	return validName(id, 1, 64, func(i int, c byte) bool { return alnum(c) || c == '.' || c == '_' || c == ':' || c == '-' })
}

// validName reports whether s has min to max bytes, each of which ok
// takes (by its index). Names are checked by hand rather than by regular
// expressions: a pattern with a counted repetition ({1,64}) costs a tenth
// of a millisecond to compile, at the start of every command.
func validName(s string, min, max int, ok func(i int, c byte) bool) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(i, s[i]) {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// NewOperationID is a fresh operation id: 96 random bits. A client picks
// one before it sends a write, so that it can name the write even when
// the reply never comes.
func NewOperationID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "op-" + hex.EncodeToString(b[:])
}
