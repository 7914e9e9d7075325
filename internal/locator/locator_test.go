package locator

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseLocator(t *testing.T) {
	role := func(r, n string) Step { return Step{Kind: StepRole, Role: r, Name: n, HasName: true} }
	for _, tc := range []struct {
		in    string
		steps []Step
		canon string
	}{
		{`role=button[name="Save"]`, []Step{role("button", "Save")}, `role=button[name="Save"]`},
		{`role=button`, []Step{{Kind: StepRole, Role: "button"}}, `role=button`},
		{`role=button[name=""]`, []Step{role("button", "")}, `role=button[name=""]`},
		{`role=Button[name='Save']`, []Step{role("button", "Save")}, `role=button[name="Save"]`},
		{` role = button [ name = "Save" ] `, []Step{role("button", "Save")}, `role=button[name="Save"]`},
		{"role=button[name=\"  Save \n  all \"]", []Step{role("button", "Save all")}, `role=button[name="Save all"]`},
		{`role=button[name="say \"hi\""]`, []Step{role("button", `say "hi"`)}, `role=button[name="say \"hi\""]`},
		{`role=button[name='it\'s']`, []Step{role("button", "it's")}, `role=button[name="it's"]`},
		{`role=button[name="a\\b"]`, []Step{role("button", `a\b`)}, `role=button[name="a\\b"]`},
		{`role=link[name="a >> b"]`, []Step{role("link", "a >> b")}, `role=link[name="a >> b"]`},
		{`role=button[name="x]"]`, []Step{role("button", "x]")}, `role=button[name="x]"]`},
		{"role=button[name=\"non\u00a0breaking\"]", []Step{role("button", "non\u00a0breaking")}, "role=button[name=\"non\u00a0breaking\"]"},
		{`role=doc-abstract`, []Step{{Kind: StepRole, Role: "doc-abstract"}}, `role=doc-abstract`},
		{`testid=save`, []Step{{Kind: StepTestID, Value: "save"}}, `testid=save`},
		{`testid="has space "`, []Step{{Kind: StepTestID, Value: "has space "}}, `testid="has space "`},
		{`testid='a>>b'`, []Step{{Kind: StepTestID, Value: "a>>b"}}, `testid="a>>b"`},
		{`testid=a=b`, []Step{{Kind: StepTestID, Value: "a=b"}}, `testid=a=b`},
		{`testid="it's"`, []Step{{Kind: StepTestID, Value: "it's"}}, `testid="it's"`},
		{`css=#main > button:nth-of-type(2)`, []Step{{Kind: StepCSS, Value: "#main > button:nth-of-type(2)"}}, `css=#main > button:nth-of-type(2)`},
		{`css=a[title="x >> y"]`, []Step{{Kind: StepCSS, Value: `a[title="x >> y"]`}}, `css=a[title="x >> y"]`},
		{`css=#email`, []Step{{Kind: StepCSS, Value: "#email"}}, `#email`},
		{`#email`, []Step{{Kind: StepCSS, Value: "#email"}}, `#email`},
		{`#\31 23`, []Step{{Kind: StepCSS, Value: `#\31 23`}}, `css=#\31 23`},
		{`#a.b`, []Step{{Kind: StepCSS, Value: "#a.b"}}, `css=#a.b`},
		{`css=:root > body > div:nth-of-type(3)`, []Step{{Kind: StepCSS, Value: ":root > body > div:nth-of-type(3)"}}, `css=:root > body > div:nth-of-type(3)`},
		{
			`role=iframe[name="Pay"]>>role=textbox[name="Card"]`,
			[]Step{role("iframe", "Pay"), role("textbox", "Card")},
			`role=iframe[name="Pay"] >> role=textbox[name="Card"]`,
		},
		{
			`#outer >> css=iframe:nth-of-type(2) >> testid=go`,
			[]Step{{Kind: StepCSS, Value: "#outer"}, {Kind: StepCSS, Value: "iframe:nth-of-type(2)"}, {Kind: StepTestID, Value: "go"}},
			`#outer >> css=iframe:nth-of-type(2) >> testid=go`,
		},
	} {
		l, err := ParseLocator(tc.in)
		if err != nil {
			t.Errorf("ParseLocator(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(l.Steps, tc.steps) {
			t.Errorf("ParseLocator(%q) = %+v, want %+v", tc.in, l.Steps, tc.steps)
		}
		if got := l.String(); got != tc.canon {
			t.Errorf("ParseLocator(%q).String() = %q, want %q", tc.in, got, tc.canon)
		}
		again, err := ParseLocator(l.String())
		if err != nil || !reflect.DeepEqual(again, l) {
			t.Errorf("%q does not read back: %+v, %v", l.String(), again, err)
		}
	}
}

func TestParseLocatorErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty locator"},
		{"   ", "empty locator"},
		{"e12", "not a locator"},
		{"@e12", "not a locator"},
		{"button", "not a locator"},
		{"text=Save", `unknown kind "text"`},
		{"xpath=//a", `unknown kind "xpath"`},
		{"role=", "missing role"},
		{"role=[name=\"x\"]", "missing role"},
		{"role=but ton", "not a role name"},
		{"role=button[name=Save]", "must be quoted"},
		{"role=button[name=\"Save\"", "missing ]"},
		{"role=button[name=\"Save]", "unterminated"},
		{"role=button[label=\"Save\"]", `only [name="…"]`},
		{"role=button[name]", `want [name="…"]`},
		{"role=button[name=\"a\"] x", `unexpected`},
		{"role=button[name=\"a\"]]", `unexpected "]"`},
		{"testid=", "empty value"},
		{"testid=\"\"", "empty value"},
		{"testid=\"a\" b", "after the quoted value"},
		{"testid=it's", "unterminated ' quote"},
		{"css=", "empty value"},
		{"#", "# needs an id"},
		{">> role=button", "nothing before >>"},
		{"role=button >>", "nothing after >>"},
		{"role=button >> >> role=link", "nothing after >>"},
		{"role=iframe >> text=x", `step 2 (text=x): unknown kind`},
	} {
		_, err := ParseLocator(tc.in)
		var le *LocatorError
		if err == nil || !errors.As(err, &le) {
			t.Errorf("ParseLocator(%q) = %v, want a *LocatorError", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseLocator(%q) error %q lacks %q", tc.in, err, tc.want)
		}
	}
}

func TestLocatorFormat(t *testing.T) {
	for _, tc := range []struct {
		l    Locator
		want string
	}{
		{RoleStep("button", " Save\n it ").Locator(), `role=button[name="Save it"]`},
		{Step{Kind: StepTestID, Value: "a b"}.Locator(), `testid=a b`},
		{Step{Kind: StepTestID, Value: " a"}.Locator(), `testid=" a"`},
		{Step{Kind: StepTestID, Value: `"a"`}.Locator(), `testid="\"a\""`},
		{Step{Kind: StepTestID, Value: `a"b`}.Locator(), `testid="a\"b"`},
		{Step{Kind: StepCSS, Value: "#x"}.Locator(), `#x`},
		{Step{Kind: StepCSS, Value: "#x y"}.Locator(), `css=#x y`},
		{Step{Kind: StepCSS, Value: `a[t="'"]`}.Locator(), `css=a[t="'"]`},
		{
			RoleStep("button", "Go").Locator().Within(Step{Kind: StepCSS, Value: "#pay"}.Locator()),
			`#pay >> role=button[name="Go"]`,
		},
	} {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		back, err := ParseLocator(tc.want)
		if err != nil {
			t.Errorf("ParseLocator(%q): %v", tc.want, err)
			continue
		}
		if !reflect.DeepEqual(back, tc.l) {
			t.Errorf("ParseLocator(%q) = %+v, want %+v", tc.want, back, tc.l)
		}
	}
}

func TestCollapseSpace(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"  ":               "",
		"a":                "a",
		" a  b\t\nc\r\f ":  "a b c",
		"a\u00a0 b":        "a\u00a0 b",
		"\u00a0":           "\u00a0",
		"x\u2003y":         "x\u2003y",
		"\n\nSave\n\n":     "Save",
		"Save   all items": "Save all items",
	} {
		if got := CollapseSpace(in); got != want {
			t.Errorf("CollapseSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseLocator: whatever parses prints canonically and reads back as
// the same locator; the canonical form is a fixed point.
func FuzzParseLocator(f *testing.F) {
	for _, s := range []string{
		`role=button[name="Save"]`, `role=button`, `testid=x`, `testid="a b "`, `css=a > b`, `#id`,
		`role=iframe[name='x'] >> #y >> testid=z`, `css=a[title="x >> y"]`, `testid=a\>>b`, `role=x[name="\\\""]`,
		`css=#\31 23`, "role=a[name=\"\u00a0\"]", `>>`, `testid='`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLocator(s)
		if err != nil {
			var le *LocatorError
			if !errors.As(err, &le) {
				t.Fatalf("ParseLocator(%q): error %T is not a *LocatorError", s, err)
			}
			return
		}
		if len(l.Steps) == 0 {
			t.Fatalf("ParseLocator(%q) gave no steps", s)
		}
		c := l.String()
		back, err := ParseLocator(c)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", c, s, err)
		}
		if !reflect.DeepEqual(back, l) {
			t.Fatalf("%q -> %q -> %+v, want %+v", s, c, back.Steps, l.Steps)
		}
		if c2 := back.String(); c2 != c {
			t.Fatalf("canonical form not stable: %q -> %q", c, c2)
		}
	})
}
