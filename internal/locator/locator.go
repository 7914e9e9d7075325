// Package locator is the grammar of the targets an agent names: refs
// ("e12", "@e12") and locators ("role=button[name=\"Save\"]",
// "testid=save", "#email", "A >> B"). Parsing and printing them needs no
// page: the operation contract checks a target with this package on any
// front end, and the engine resolves what it parsed.
package locator

import (
	"errors"
	"fmt"
	"strings"
)

// A Locator finds an element by what it is rather than by a ref, so it
// survives the document it was taken from. Its text form is one or more
// steps joined by ">>":
//
//	role=ROLE                   an element whose role (as the snapshot shows
//	role=ROLE[name="NAME"]      it) is ROLE and, with a name, whose
//	                            accessible name is exactly NAME (compared
//	                            after collapsing runs of white space; quoted
//	                            with " or ', with \" \' \\ escapes)
//	testid=VALUE                an element whose data-testid is VALUE
//	css=SELECTOR                an element matching the CSS selector
//	#ID                         shorthand for css=#ID (any step that starts
//	                            with # is CSS)
//	A >> B                      B inside the frame of the <iframe> that A
//	                            matches; A must match exactly one iframe
//	                            element. Any depth: A >> B >> C.
//
// A testid or css value may be quoted like a name ("…" or '…', with
// backslash escapes) when it has surrounding spaces, starts with a quote,
// or contains ">>" outside quotes; otherwise it is taken as written. The
// first step is searched on the whole surface (every frame); each later
// step only in the frame the step before it selected. Role steps match
// exactly the nodes a snapshot would show (hidden, aria-hidden and
// display:none elements never match, open shadow roots are searched);
// testid and css steps match through querySelectorAll in each document
// (shadow roots are not searched).
//
// Examples:
//
//	role=button[name="Save"]
//	testid=checkout-submit
//	#email
//	css=form.login > button:nth-of-type(2)
//	role=iframe[name="Payment"] >> role=textbox[name="Card number"]
type Locator struct {
	Steps []Step
}

// StepKind says how a step finds elements.
type StepKind uint8

// The kinds of steps.
const (
	StepRole StepKind = iota + 1
	StepTestID
	StepCSS
)

// Step is one part of a locator: a way to find elements in one document
// (or, for the first step, on the whole surface).
type Step struct {
	Kind StepKind
	// Role and Name for StepRole. HasName tells role=x (any name) from
	// role=x[name=""] (an empty name). Name is white-space collapsed.
	Role    string
	Name    string
	HasName bool
	// Value is the data-testid value (StepTestID) or the selector (StepCSS).
	Value string
}

// RoleStep returns the step role=ROLE[name="NAME"].
func RoleStep(role, name string) Step {
	return Step{Kind: StepRole, Role: role, Name: CollapseSpace(name), HasName: true}
}

// Locator returns a one-step locator.
func (s Step) Locator() Locator { return Locator{Steps: []Step{s}} }

// Within returns the locator l inside the frame of the iframe that frame
// matches: frame >> l.
func (l Locator) Within(frame Locator) Locator {
	steps := make([]Step, 0, len(frame.Steps)+len(l.Steps))
	steps = append(steps, frame.Steps...)
	return Locator{Steps: append(steps, l.Steps...)}
}

// IsZero reports whether the locator has no steps.
func (l Locator) IsZero() bool { return len(l.Steps) == 0 }

// String returns the canonical text form, which ParseLocator reads back
// as the same locator.
func (l Locator) String() string {
	parts := make([]string, len(l.Steps))
	for i, s := range l.Steps {
		parts[i] = s.String()
	}
	return strings.Join(parts, " >> ")
}

// String returns the step's canonical text form.
func (s Step) String() string {
	switch s.Kind {
	case StepRole:
		if !s.HasName {
			return "role=" + s.Role
		}
		return "role=" + s.Role + "[name=" + locQuote(s.Name) + "]"
	case StepTestID:
		return "testid=" + locValue(s.Value)
	case StepCSS:
		if locPlainID(s.Value) {
			return s.Value
		}
		return "css=" + locValue(s.Value)
	}
	return ""
}

// value writes a testid or css value bare when it reads back the same,
// quoted otherwise.
func locValue(v string) string {
	if v == "" || v != strings.TrimSpace(v) || v[0] == '"' || v[0] == '\'' {
		return locQuote(v)
	}
	if parts, err := locSplit(v); err != nil || len(parts) != 1 || parts[0] != v {
		return locQuote(v)
	}
	return v
}

// plainID reports a selector that is one bare id ("#main-nav"), which
// prints in the #id shorthand.
func locPlainID(sel string) bool {
	if len(sel) < 2 || sel[0] != '#' {
		return false
	}
	for i := 1; i < len(sel); i++ {
		c := sel[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 0x80) {
			return false
		}
	}
	return true
}

func locQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// CollapseSpace collapses runs of HTML white space (space, tab, CR, LF,
// FF) to one space and trims the ends, as the page agent does for names.
// Other spaces (NBSP and the like) are kept, as in names.
func CollapseSpace(s string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// LocatorError is a locator that does not parse.
type LocatorError struct {
	Input string
	Msg   string
}

func (e *LocatorError) Error() string {
	return fmt.Sprintf("locator %q: %s", e.Input, e.Msg)
}

// ParseLocator reads a locator's text form (see Locator). Errors are
// *LocatorError and say what is wrong.
func ParseLocator(s string) (Locator, error) {
	fail := func(format string, args ...any) (Locator, error) {
		return Locator{}, &LocatorError{Input: s, Msg: fmt.Sprintf(format, args...)}
	}
	if strings.TrimSpace(s) == "" {
		return fail("empty locator (want role=…, testid=…, css=… or #id)")
	}
	parts, err := locSplit(s)
	if err != nil {
		return fail("%v", err)
	}
	l := Locator{Steps: make([]Step, 0, len(parts))}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			if i == 0 {
				return fail("nothing before >>")
			}
			return fail("nothing after >>")
		}
		st, err := locStep(p)
		if err != nil {
			if len(parts) > 1 {
				return fail("step %d (%s): %v", i+1, p, err)
			}
			return fail("%v", err)
		}
		l.Steps = append(l.Steps, st)
	}
	return l, nil
}

// splitSteps splits at ">>" outside quotes. A backslash escapes the next
// character, inside quotes and out (as in CSS).
func locSplit(s string) ([]string, error) {
	var parts []string
	start := 0
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '>' && i+1 < len(s) && s[i+1] == '>':
			parts = append(parts, s[start:i])
			i++
			start = i + 1
		}
	}
	if q != 0 {
		return nil, fmt.Errorf("unterminated %c quote", q)
	}
	return append(parts, s[start:]), nil
}

func locStep(p string) (Step, error) {
	if p[0] == '#' {
		if len(p) == 1 {
			return Step{}, errors.New("# needs an id (#email)")
		}
		return Step{Kind: StepCSS, Value: p}, nil
	}
	eq := strings.IndexByte(p, '=')
	if eq < 0 {
		return Step{}, errors.New("not a locator (want role=…, testid=…, css=… or #id; a ref is e12 or @e12)")
	}
	kind, rest := strings.TrimSpace(p[:eq]), strings.TrimSpace(p[eq+1:])
	switch kind {
	case "role":
		return locRole(rest)
	case "testid":
		v, err := locParseValue(rest)
		if err != nil {
			return Step{}, fmt.Errorf("testid: %v", err)
		}
		return Step{Kind: StepTestID, Value: v}, nil
	case "css":
		v, err := locParseValue(rest)
		if err != nil {
			return Step{}, fmt.Errorf("css: %v", err)
		}
		return Step{Kind: StepCSS, Value: v}, nil
	}
	return Step{}, fmt.Errorf("unknown kind %q (want role=, testid=, css= or #id)", kind)
}

// parseValue reads a testid or css value: bare, or one quoted string.
func locParseValue(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty value")
	}
	if s[0] != '"' && s[0] != '\'' {
		return s, nil
	}
	v, rest, err := locUnquote(s)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("unexpected %q after the quoted value", rest)
	}
	if v == "" {
		return "", errors.New("empty value")
	}
	return v, nil
}

// unquote reads a quoted string at the start of s and returns it and what
// follows.
func locUnquote(s string) (v, rest string, err error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return "", "", errors.New("backslash at the end")
			}
			i++
			b.WriteByte(s[i])
		case c == q:
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated %c quote", q)
}

func locValidRole(r string) bool {
	if r == "" || r[0] < 'a' || r[0] > 'z' {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// parseRole reads ROLE or ROLE[name="NAME"].
func locRole(s string) (Step, error) {
	role, attr := s, ""
	if i := strings.IndexByte(s, '['); i >= 0 {
		role, attr = strings.TrimSpace(s[:i]), s[i:]
	}
	role = strings.ToLower(role)
	if !locValidRole(role) {
		if role == "" {
			return Step{}, errors.New(`role: missing role (e.g. role=button[name="Save"])`)
		}
		return Step{}, fmt.Errorf("role: %q is not a role name (letters, digits and -)", role)
	}
	st := Step{Kind: StepRole, Role: role}
	if attr == "" {
		return st, nil
	}
	// [ name = "..." ]
	a := strings.TrimSpace(attr[1:])
	if !strings.HasPrefix(a, "name") {
		return Step{}, fmt.Errorf(`role: only [name="…"] may follow the role, not %s`, attr)
	}
	a = strings.TrimSpace(a[len("name"):])
	if a == "" || a[0] != '=' {
		return Step{}, errors.New(`role: want [name="…"]`)
	}
	a = strings.TrimSpace(a[1:])
	if a == "" || (a[0] != '"' && a[0] != '\'') {
		return Step{}, errors.New(`role: the name must be quoted: [name="…"]`)
	}
	name, rest, err := locUnquote(a)
	if err != nil {
		return Step{}, fmt.Errorf("role: name: %v", err)
	}
	rest = strings.TrimSpace(rest)
	if rest == "" || rest[0] != ']' {
		return Step{}, errors.New(`role: missing ] after the name`)
	}
	if tail := strings.TrimSpace(rest[1:]); tail != "" {
		return Step{}, fmt.Errorf("role: unexpected %q after ]", tail)
	}
	st.Name, st.HasName = CollapseSpace(name), true
	return st, nil
}
