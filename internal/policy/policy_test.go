package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The most specific rule wins: an operation over its class, a rule with a
// matching origin over one without; without a rule a write is allowed.
func TestDecide(t *testing.T) {
	p, err := Load(filepath.Join(t.TempDir(), "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Rule{
		{Key: "input", Decision: Ask},
		{Key: "click", Decision: Allow},
		{Key: "input", Origin: "https://*.bank.example", Decision: Deny},
		{Key: "click", Origin: "https://pay.bank.example", Decision: Ask},
		{Key: "eval", Decision: Deny},
	} {
		if err := p.Set(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		op, class, origin string
		want              Decision
	}{
		{"type", "input", "http://127.0.0.1:8080", Ask},
		{"click", "input", "http://127.0.0.1:8080", Allow},
		{"type", "input", "https://www.bank.example", Deny},
		{"type", "input", "HTTPS://WWW.BANK.EXAMPLE", Deny},
		{"click", "input", "https://www.bank.example", Allow}, // the verb beats the class, even with an origin
		{"click", "input", "https://pay.bank.example", Ask},
		{"eval", "eval", "", Deny},
		{"open", "navigate", "https://x.example", Allow},
		{"type", "input", "", Ask}, // an origin rule never matches no origin
	} {
		if got, _ := p.Decide(tc.op, tc.class, tc.origin); got != tc.want {
			t.Errorf("Decide(%s, %s, %s) = %s, want %s", tc.op, tc.class, tc.origin, got, tc.want)
		}
	}
}

// Rules and the approval timeout outlast the process; setting a rule
// again replaces it; bad input changes nothing.
func TestPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	p, _ := Load(path)
	if p.ApprovalTimeout() != DefaultApprovalTimeout || len(p.Rules()) != 0 {
		t.Fatalf("default policy: %v %v", p.ApprovalTimeout(), p.Rules())
	}
	_ = p.Set(Rule{Key: "click", Decision: Ask})
	_ = p.Set(Rule{Key: "click", Decision: Deny})
	_ = p.SetApprovalTimeout(30 * time.Second)
	if err := p.Set(Rule{Key: "click", Decision: "maybe"}); err == nil {
		t.Error("a bad decision was taken")
	}
	if err := p.Set(Rule{Key: "click", Origin: "[", Decision: Ask}); err == nil {
		t.Error("a bad origin pattern was taken")
	}
	q, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := q.Rules(); len(r) != 1 || r[0].Decision != Deny || q.ApprovalTimeout() != 30*time.Second {
		t.Errorf("reloaded: %+v %v", r, q.ApprovalTimeout())
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("policy file mode: %v %v", st, err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("a broken policy file was taken for the default")
	}
}

// TestUnsetAndReset: a rule is removed by its key and origin (another
// origin's rule stays), a rule that is not there is ErrNoRule and changes
// nothing, and Reset leaves no rule and the default timeout — saved.
func TestUnsetAndReset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	p, _ := Load(path)
	_ = p.Set(Rule{Key: "click", Decision: Deny})
	_ = p.Set(Rule{Key: "click", Origin: "https://*.bank.example", Decision: Ask})
	_ = p.SetApprovalTimeout(30 * time.Second)
	if err := p.Unset("click", ""); err != nil {
		t.Fatal(err)
	}
	if r := p.Rules(); len(r) != 1 || r[0].Origin != "https://*.bank.example" {
		t.Fatalf("after unset: %+v", r)
	}
	if d, _ := p.Decide("click", "input", "https://shop.example"); d != Allow {
		t.Fatalf("an unset rule still decides: %v", d)
	}
	if err := p.Unset("click", ""); !errors.Is(err, ErrNoRule) || len(p.Rules()) != 1 {
		t.Fatalf("unset of no rule: %v, %+v", err, p.Rules())
	}
	q, _ := Load(path)
	if len(q.Rules()) != 1 {
		t.Fatalf("unset not saved: %+v", q.Rules())
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	q, _ = Load(path)
	if len(p.Rules()) != 0 || p.ApprovalTimeout() != DefaultApprovalTimeout || len(q.Rules()) != 0 || q.ApprovalTimeout() != DefaultApprovalTimeout {
		t.Fatalf("after reset: %+v %v; saved %+v %v", p.Rules(), p.ApprovalTimeout(), q.Rules(), q.ApprovalTimeout())
	}
}
