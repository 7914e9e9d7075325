package routespec

import (
	"fmt"
	"strings"
)

// Header is one header a route sets.
type Header struct {
	Name, Value string
}

// ParseHeader reads "Name: value" (the value's leading blanks dropped;
// "Name:" is an empty value, which removes the header from a request
// sent on) and checks it (CheckHeader).
func ParseHeader(s string) (Header, error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return Header{}, fmt.Errorf("header %q: want NAME:VALUE", s)
	}
	h := Header{Name: strings.TrimSpace(name), Value: strings.TrimLeft(value, " \t")}
	return h, CheckHeader(h.Name, h.Value)
}

// CheckHeader refuses a header the protocol would refuse or that could
// smuggle another one in: a name of HTTP token characters, a value with
// no control character but tab.
func CheckHeader(name, value string) error {
	if name == "" || len(name) > 256 {
		return fmt.Errorf("header name %q: 1 to 256 characters", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return fmt.Errorf("header name %q: letters, digits and !#$%%&'*+-.^_`|~ only", name)
		}
	}
	if len(value) > 8192 {
		return fmt.Errorf("header %s: a value of at most 8192 bytes", name)
	}
	for _, c := range value {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return fmt.Errorf("header %s: its value holds a control character", name)
		}
	}
	return nil
}
