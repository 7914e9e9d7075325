package cli

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Every input field of every operation can be given on the command line
// (an argument or a flag), or says why not; and what the CLI parses
// travels to the local API under the same wire names the executor decodes.
func TestEveryOpFieldHasACLIForm(t *testing.T) {
	for _, op := range ops.New().All() {
		typ := op.InType()
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			_, arg := f.Tag.Lookup("arg")
			_, flag := f.Tag.Lookup("flag")
			if !arg && !flag && f.Tag.Get("cli") == "" {
				t.Errorf("%s: field %s has no argument or flag and no cli:\"why\" tag", op.Name, name)
			}
		}
		// The zero input round-trips through the executor's decoder.
		raw, err := json.Marshal(op.NewIn())
		if err != nil {
			t.Fatal(err)
		}
		in := op.NewIn()
		if err := json.Unmarshal(raw, in); err != nil || !reflect.DeepEqual(in, op.NewIn()) {
			t.Errorf("%s: input does not round-trip: %s %v", op.Name, raw, err)
		}
		if _, err := ops.Decode(op, raw); err != nil {
			if e, ok := apitype.As(err); !ok || e.Code != apitype.BadInput || strings.Contains(e.Message, "bad input") {
				t.Errorf("%s: the executor cannot decode the CLI's JSON: %v", op.Name, err)
			}
		}
	}
}

// Recovery advice names loupe commands and flags.
func TestRenderInCLITerms(t *testing.T) {
	r := renderer{ops.New()}
	for _, tc := range []struct {
		step apitype.Step
		want string
	}{
		{apitype.Step{Op: "switch", Args: map[string]string{"surface_id": "s3"}}, "`loupe switch s3`"},
		{apitype.Step{Op: "wait", Args: map[string]string{"load": "true"}}, "`loupe wait --load`"},
		{apitype.Step{Op: "snapshot"}, "`loupe snapshot`"},
		{apitype.Step{Op: "open", Args: map[string]string{"url": "http://a b"}}, "`loupe open 'http://a b'`"},
		{apitype.Step{Op: "daemon stop"}, "`loupe daemon stop`"},
	} {
		if got := r.Step(tc.step); got != tc.want {
			t.Errorf("Step(%+v) = %s, want %s", tc.step, got, tc.want)
		}
	}
	for _, tc := range []struct{ op, field, want string }{
		{"snapshot", "max_chars", "--max-chars"},
		{"click", "ref", "TARGET"},
		{"wait", "ref", "--target"},
		{"press", "keys", "KEYS"},
	} {
		if got := r.Field(tc.op, tc.field); got != tc.want {
			t.Errorf("Field(%s, %s) = %s, want %s", tc.op, tc.field, got, tc.want)
		}
	}
	e := apitype.Errorf(apitype.Timeout, "no text")
	e.Op, e.TimeoutMS = "wait", 3000
	if got := e.Render(r).Hint; !strings.Contains(got, "raise --timeout (it was 3s)") {
		t.Errorf("timeout hint: %s", got)
	}
	e = apitype.Errorf(apitype.BadInput, "x")
	e.Op = "click"
	if got := e.Render(r).Hint; !strings.Contains(got, "`loupe help click`") {
		t.Errorf("bad input hint: %s", got)
	}
}
