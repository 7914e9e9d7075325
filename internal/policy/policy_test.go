package policy

import (
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
