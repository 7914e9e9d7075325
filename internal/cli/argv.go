package cli

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/loupe-dev/loupe/internal/ops"
)

// param is one positional argument or flag of an operation, read from the
// struct tags of its input (see package ops).
type param struct {
	index    int
	name     string // positional: "TARGET"; flag: "new-tab"
	short    string
	meta     string // a flag's value placeholder in usage ("URL"); default its name
	help     string
	optional bool // [NAME]
	rest     bool // NAME...
	flag     bool
	kind     reflect.Kind
}

type spec struct {
	pos   []param
	flags []param
}

func specOf(t reflect.Type) spec {
	var s spec
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		p := param{index: i, help: helpText(f.Tag.Get("help")), kind: f.Type.Kind(), short: f.Tag.Get("short"), meta: f.Tag.Get("meta")}
		if a, ok := f.Tag.Lookup("arg"); ok {
			p.name = a
			if strings.HasPrefix(a, "[") {
				p.optional = true
				p.name = strings.Trim(a, "[]")
			}
			if strings.HasSuffix(a, "...") {
				p.rest = true
				p.name = strings.TrimSuffix(a, "...")
			}
			s.pos = append(s.pos, p)
		} else if fl, ok := f.Tag.Lookup("flag"); ok {
			p.flag = true
			p.name = fl
			s.flags = append(s.flags, p)
		}
	}
	return s
}

// helpText renders a help tag's field names ({field:NAME}) as the flags
// and arguments that set them.
func helpText(h string) string {
	return fieldMarkup.ReplaceAllStringFunc(h, func(m string) string {
		return renderer{}.Field("", m[len("{field:"):len(m)-1])
	})
}

var fieldMarkup = regexp.MustCompile(`\{field:[a-z_]+\}`)

// hasFlag reports whether the input has a --name flag.
func (s spec) hasFlag(name string) bool {
	for _, f := range s.flags {
		if f.name == name {
			return true
		}
	}
	return false
}

func (s spec) flag(name string) (param, bool) {
	for _, f := range s.flags {
		if f.name == name || (len(name) == 1 && f.short == name) {
			return f, true
		}
	}
	return param{}, false
}

// parseArgs fills a new input of op from argv. Errors are usage errors.
func parseArgs(op *ops.Op, args []string) (any, error) {
	in := op.NewIn()
	v := reflect.ValueOf(in).Elem()
	s := specOf(op.InType())
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || isNumber(a) {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		p, ok := s.flag(name)
		if !ok {
			return nil, fmt.Errorf("unknown flag %s", a)
		}
		if p.kind == reflect.Bool {
			b := true
			if hasVal {
				var err error
				if b, err = strconv.ParseBool(val); err != nil {
					return nil, fmt.Errorf("%s: want true or false", a)
				}
			}
			v.Field(p.index).SetBool(b)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag %s needs a value", a)
			}
			i++
			val = args[i]
		}
		if err := set(v.Field(p.index), val); err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
	}
	return in, assignPositionals(v, s.pos, pos)
}

// assignPositionals gives each positional its token, left to right; an
// optional one takes a token only when enough remain for the required ones
// after it.
func assignPositionals(v reflect.Value, params []param, toks []string) error {
	required := 0
	for _, p := range params {
		if !p.optional && !p.rest {
			required++
		}
	}
	i := 0
	for _, p := range params {
		switch {
		case p.rest:
			rest := toks[min(i, len(toks)):]
			v.Field(p.index).Set(reflect.ValueOf(append([]string(nil), rest...)))
			i = len(toks)
		case p.optional:
			if len(toks)-i > required {
				if err := set(v.Field(p.index), toks[i]); err != nil {
					return fmt.Errorf("%s: %v", p.name, err)
				}
				i++
			}
		default:
			required--
			if i >= len(toks) {
				return fmt.Errorf("missing %s", p.name)
			}
			if err := set(v.Field(p.index), toks[i]); err != nil {
				return fmt.Errorf("%s: %v", p.name, err)
			}
			i++
		}
	}
	if i < len(toks) {
		return fmt.Errorf("unexpected argument %q", toks[i])
	}
	return nil
}

func set(f reflect.Value, s string) error {
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(s))
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
		f.SetInt(n)
	case reflect.Float64:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return fmt.Errorf("%q is not a finite number", s)
		}
		f.SetFloat(n)
	case reflect.Slice:
		f.Set(reflect.Append(f, reflect.ValueOf(s)))
	default:
		return fmt.Errorf("unsupported field kind %s", f.Kind())
	}
	return nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
