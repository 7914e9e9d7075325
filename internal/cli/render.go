package cli

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/shellword"
)

// renderer writes recovery advice as loupe commands (apitype.Renderer).
type renderer struct{ reg *ops.Registry }

// render is err's registry error in the CLI's terms.
func (c *cmd) render(err error) *apitype.Error {
	e, ok := apitype.As(err)
	if !ok {
		e = apitype.Wrap(apitype.Internal, err, "%v", err)
	}
	return e.Render(renderer{c.reg})
}

// wireField is the struct field of typ whose JSON name is name.
func wireField(typ reflect.Type, name string) (reflect.StructField, bool) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// Step renders a call as the command that makes it: `loupe switch s3`.
func (r renderer) Step(s apitype.Step) string {
	op, ok := r.reg.Lookup(s.Op)
	if !ok {
		return "`loupe " + s.Op + "`"
	}
	words := []string{"loupe", op.Name}
	var flags []string
	typ := op.InType()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		v, given := s.Args[name]
		if !given {
			continue
		}
		switch {
		case f.Tag.Get("arg") != "":
			words = append(words, shellword.Quote(v))
		case f.Tag.Get("flag") != "" && f.Type.Kind() == reflect.Bool:
			flags = append(flags, "--"+f.Tag.Get("flag"))
		case f.Tag.Get("flag") != "":
			flags = append(flags, "--"+f.Tag.Get("flag"), shellword.Quote(v))
		}
	}
	return "`" + strings.Join(append(words, flags...), " ") + "`"
}

// Field is the flag (--max-chars) or the positional (TARGET) that sets a
// field of op.
func (r renderer) Field(opName, name string) string {
	if r.reg == nil {
		return "--" + strings.ReplaceAll(name, "_", "-")
	}
	if op, ok := r.reg.Lookup(opName); ok {
		if f, ok := wireField(op.InType(), name); ok {
			if a := f.Tag.Get("arg"); a != "" {
				return strings.TrimSuffix(strings.Trim(a, "[]"), "...")
			}
			if fl := f.Tag.Get("flag"); fl != "" {
				return "--" + fl
			}
		}
	}
	return "--" + strings.ReplaceAll(name, "_", "-")
}

// Timeout advises --timeout, above the one that ran out.
func (r renderer) Timeout(_ string, ms int64) string {
	if ms > 0 {
		return fmt.Sprintf("raise --timeout (it was %s)", time.Duration(ms)*time.Millisecond)
	}
	return "raise --timeout"
}

// Help points at the command's help.
func (r renderer) Help(op string) string {
	if op == "" {
		return "see `loupe --help`"
	}
	return "see `loupe help " + op + "`"
}
