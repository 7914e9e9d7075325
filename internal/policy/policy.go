// Package policy is loupe's approval policy: for each write, allow it, ask
// a person first, or deny it. Rules name an action class (navigate, input,
// upload, eval, close, …) or a single operation (click), optionally for
// pages of an origin pattern; the most specific rule wins — an operation
// over its class, a rule with an origin over one without — and without a
// rule a write is allowed. The rules live in a file in LOUPE_HOME, so a
// person's choices outlast the daemon.
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// Decision is what a rule says of a write.
type Decision string

// The decisions.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// ParseDecision checks a decision's spelling.
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(s); d {
	case Allow, Ask, Deny:
		return d, nil
	}
	return "", fmt.Errorf("%q: want allow, ask or deny", s)
}

// Rule is one line of the policy.
type Rule struct {
	// Key is an action class or an operation name.
	Key string `json:"key"`
	// Origin, when set, limits the rule to pages whose origin matches
	// it: a glob over scheme://host[:port] ("https://*.bank.example").
	Origin   string   `json:"origin,omitempty"`
	Decision Decision `json:"decision"`
}

// Name names the rule for a person: its key, and its origin when it has
// one ("" for no rule).
func (r *Rule) Name() string {
	if r == nil {
		return ""
	}
	if r.Origin != "" {
		return r.Key + " on " + r.Origin
	}
	return r.Key
}

// DefaultApprovalTimeout bounds how long a write waits for a person.
const DefaultApprovalTimeout = 2 * time.Minute

// file is the policy file's content.
type file struct {
	Rules           []Rule `json:"rules"`
	ApprovalTimeout string `json:"approval_timeout,omitempty"`
}

// Policy is the rules in force. It is safe for concurrent use.
type Policy struct {
	path string

	mu      sync.Mutex
	rules   []Rule
	timeout time.Duration
}

// Load reads the policy at path; a missing file is the default policy
// (everything allowed).
func Load(path string) (*Policy, error) {
	p := &Policy{path: path, timeout: DefaultApprovalTimeout}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	for _, r := range f.Rules {
		if _, err := ParseDecision(string(r.Decision)); err != nil || r.Key == "" {
			return nil, fmt.Errorf("policy %s: bad rule %+v", path, r)
		}
	}
	p.rules = f.Rules
	if f.ApprovalTimeout != "" {
		d, err := time.ParseDuration(f.ApprovalTimeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("policy %s: approval_timeout %q", path, f.ApprovalTimeout)
		}
		p.timeout = d
	}
	return p, nil
}

// Rules returns the rules, sorted by key then origin.
func (p *Policy) Rules() []Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]Rule(nil), p.rules...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Origin < out[j].Origin
	})
	return out
}

// ApprovalTimeout is how long a write waits for a person's answer.
func (p *Policy) ApprovalTimeout() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.timeout
}

// Set adds or replaces the rule for (key, origin) and saves the policy.
func (p *Policy) Set(r Rule) error {
	if _, err := ParseDecision(string(r.Decision)); err != nil {
		return err
	}
	if r.Origin != "" {
		if _, err := path.Match(r.Origin, ""); err != nil {
			return fmt.Errorf("origin pattern %q: %v", r.Origin, err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	rules := make([]Rule, 0, len(p.rules)+1)
	for _, old := range p.rules {
		if old.Key != r.Key || old.Origin != r.Origin {
			rules = append(rules, old)
		}
	}
	rules = append(rules, r)
	if err := p.save(rules, p.timeout); err != nil {
		return err
	}
	p.rules = rules
	return nil
}

// ErrNoRule means Unset found no rule for its key and origin.
var ErrNoRule = errors.New("no such rule")

// Unset removes the rule for (key, origin) and saves the policy.
func (p *Policy) Unset(key, origin string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	rules := make([]Rule, 0, len(p.rules))
	for _, old := range p.rules {
		if old.Key != key || old.Origin != origin {
			rules = append(rules, old)
		}
	}
	if len(rules) == len(p.rules) {
		return ErrNoRule
	}
	if err := p.save(rules, p.timeout); err != nil {
		return err
	}
	p.rules = rules
	return nil
}

// Reset removes every rule and restores the default approval timeout.
func (p *Policy) Reset() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.save(nil, DefaultApprovalTimeout); err != nil {
		return err
	}
	p.rules, p.timeout = nil, DefaultApprovalTimeout
	return nil
}

// SetApprovalTimeout changes how long writes wait for a person, and saves.
func (p *Policy) SetApprovalTimeout(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("approval timeout %s: want a positive time", d)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.save(p.rules, d); err != nil {
		return err
	}
	p.timeout = d
	return nil
}

// save writes the file atomically (a person's rules must never be half
// written). Caller holds p.mu.
func (p *Policy) save(rules []Rule, timeout time.Duration) error {
	b, err := json.MarshalIndent(file{Rules: rules, ApprovalTimeout: timeout.String()}, "", "  ")
	if err != nil {
		return err
	}
	tmp := p.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p.path)
}

// Decide is the decision for a write: its operation, its action class and
// the origin of the page it acts on ("" when there is none). It returns
// the rule that decided (nil: no rule, allowed).
func (p *Policy) Decide(op, class, origin string) (Decision, *Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	best, bestScore := (*Rule)(nil), -1
	for i := range p.rules {
		r := &p.rules[i]
		score := 0
		switch r.Key {
		case op:
			score += 2
		case class:
		default:
			continue
		}
		if r.Origin != "" {
			if !matchOrigin(r.Origin, origin) {
				continue
			}
			score++
		}
		if score > bestScore {
			best, bestScore = r, score
		}
	}
	if best == nil {
		return Allow, nil
	}
	return best.Decision, best
}

// matchOrigin matches an origin against a glob, case-insensitively.
func matchOrigin(pattern, origin string) bool {
	if origin == "" {
		return false
	}
	ok, _ := path.Match(strings.ToLower(pattern), strings.ToLower(origin))
	return ok
}
