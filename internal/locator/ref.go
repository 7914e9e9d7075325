package locator

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseRef accepts "e12" or "@e12" and returns 12.
func ParseRef(s string) (int64, error) {
	s = strings.TrimPrefix(s, "@")
	if len(s) < 2 || s[0] != 'e' {
		return 0, fmt.Errorf("%q is not a ref (want e12 or @e12)", s)
	}
	n, err := strconv.ParseInt(s[1:], 10, 64)
	if err != nil || n < 1 || s[1] == '0' || s[1] == '+' {
		return 0, fmt.Errorf("%q is not a ref (want e12 or @e12)", s)
	}
	return n, nil
}

// NormalizeRef returns the canonical "e12" form of a ref.
func NormalizeRef(s string) (string, error) {
	n, err := ParseRef(s)
	if err != nil {
		return "", err
	}
	return "e" + strconv.FormatInt(n, 10), nil
}
