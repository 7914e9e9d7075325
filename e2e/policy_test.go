package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPolicyRulesAreCheckedAndRemovable: an unknown class or operation
// and a malformed origin pattern are usage errors (exit 2) that save
// nothing, a misspelt key gets the nearest name; a rule is removed with
// policy unset (by its key and origin), and policy reset removes them all.
func TestPolicyRulesAreCheckedAndRemovable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rules := func() []map[string]string {
		var out struct {
			Rules           []map[string]string `json:"rules"`
			ApprovalTimeout string              `json:"approval_timeout"`
		}
		e.okJSON(&out, "policy")
		return out.Rules
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"policy", "set", "clik", "deny"}, `did you mean "click"?`},
		{[]string{"policy", "set", "click", "deny", "--origin", "bank.example"}, "scheme://host"},
		{[]string{"policy", "set", "click", "deny", "--origin", "https://bank.example/pay"}, "scheme://host"},
		{[]string{"policy", "unset", "inptu"}, `did you mean "input"?`},
	} {
		r := e.run(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("loupe %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	if got := rules(); len(got) != 0 {
		t.Fatalf("a refused rule was saved: %v", got)
	}

	e.ok("policy", "set", "click", "deny")
	e.ok("policy", "set", "click", "ask", "--origin", "https://*.bank.example")
	e.ok("policy", "set", "navigate", "ask")
	e.ok("policy", "unset", "click")
	got := rules()
	if len(got) != 2 || got[0]["key"] != "click" || got[0]["origin"] != "https://*.bank.example" {
		t.Fatalf("after unset click: %v", got)
	}
	r := e.run("policy", "unset", "click", "--origin", "https://other.example")
	if r.code != 1 || !strings.Contains(r.stderr, "no rule for click on https://other.example") {
		t.Fatalf("unset of a rule that is not there: exit %d %q", r.code, r.stderr)
	}
	e.ok("policy", "unset", "click", "--origin", "https://*.bank.example")
	e.ok("policy", "set", "approval-timeout", "30s")
	out := e.ok("--json", "policy", "reset")
	var reset struct {
		Rules           []any  `json:"rules"`
		ApprovalTimeout string `json:"approval_timeout"`
	}
	if err := json.Unmarshal([]byte(out), &reset); err != nil || len(reset.Rules) != 0 || reset.ApprovalTimeout != "2m0s" {
		t.Fatalf("policy reset: %s %v", out, err)
	}
}
