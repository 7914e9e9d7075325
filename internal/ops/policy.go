package ops

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/nearest"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/wire"
)

// PolicySetIn changes one rule, or the approval timeout.
type PolicySetIn struct {
	Key      string `json:"key" arg:"CLASS_OR_OP" help:"an action class (navigate, input, upload, download, eval, close, target, session, dialogs, record, state, network) or an operation (click), or approval-timeout"`
	Decision string `json:"decision" arg:"DECISION" help:"allow, ask or deny (for approval-timeout: a duration such as 30s)"`
	Origin   string `json:"origin,omitempty" flag:"origin" meta:"PATTERN" help:"only for pages whose origin matches PATTERN, e.g. https://*.bank.example"`
}

// Validate checks the decision (or the timeout).
func (in *PolicySetIn) Validate() error {
	if in.Key == "" {
		return usage("missing %s", fld("key"))
	}
	if in.Key == "approval-timeout" {
		var m Millis
		if err := m.UnmarshalText([]byte(in.Decision)); err != nil || m <= 0 {
			return usage("approval-timeout %q: want a duration such as 30s", in.Decision)
		}
		return nil
	}
	if _, err := policy.ParseDecision(in.Decision); err != nil {
		return usage("%s %v", fld("decision"), err)
	}
	return checkRule(in.Key, in.Origin)
}

// PolicyUnsetIn names a rule to remove.
type PolicyUnsetIn struct {
	Key    string `json:"key" arg:"CLASS_OR_OP" help:"the rule's action class or operation, as policy lists it"`
	Origin string `json:"origin,omitempty" flag:"origin" meta:"PATTERN" help:"the rule's origin pattern, as policy lists it (none: the rule without one)"`
}

// Validate checks the key and the pattern as policy set does.
func (in *PolicyUnsetIn) Validate() error {
	if in.Key == "" {
		return usage("missing %s", fld("key"))
	}
	return checkRule(in.Key, in.Origin)
}

// policyKeys are the names a rule may have: the action classes a policy
// decides and the writes' own names, sorted.
var policyKeys = sync.OnceValue(func() []string {
	keys := map[string]bool{}
	for _, o := range New().All() {
		if o.Kind == Write && o.Action != ActControl {
			keys[o.Name] = true
			keys[string(o.Action)] = true
		}
	}
	keys[string(ActDownload)] = true // decided as a download begins, not by an operation
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
})

// originPattern is what an origin rule matches: scheme://host[:port], each
// part a glob ("https://*.bank.example", "http://127.0.0.1:*").
var originPattern = regexp.MustCompile(`^([a-z*?][a-z0-9+.*?-]*)://([^/?#\s@]*)$`)

// checkRule refuses a key that names no class or write (with the
// nearest names) and an origin that is not a pattern of scheme://host.
func checkRule(key, origin string) error {
	keys := policyKeys()
	if !slices.Contains(keys, key) {
		if s := nearest.Name(key, keys); s != "" {
			return usage("%q is not an action class or an operation (did you mean %q?)", key, s)
		}
		return usage("%q is not an action class or an operation: want one of %s", key, strings.Join(keys, ", "))
	}
	if origin == "" {
		return nil
	}
	if _, err := path.Match(origin, ""); err != nil || !originPattern.MatchString(strings.ToLower(origin)) {
		return usage("origin pattern %q: want scheme://host[:port], each part a glob, e.g. https://*.bank.example", origin)
	}
	return nil
}

// Timeout is the approval timeout the input sets, if it sets one.
func (in *PolicySetIn) Timeout() (time.Duration, bool) {
	if in.Key != "approval-timeout" {
		return 0, false
	}
	var m Millis
	_ = m.UnmarshalText([]byte(in.Decision)) // checked by Validate
	return m.Duration(), true
}

// ApprovalIDIn names a waiting write.
type ApprovalIDIn struct {
	ID string `json:"approval_id" arg:"ID" help:"an approval id, as listed by approvals (a1, a2, …)"`
}

// Validate checks the id is given.
func (in *ApprovalIDIn) Validate() error {
	if in.ID == "" {
		return usage("missing %s", fld("approval_id"))
	}
	return nil
}

// PolicyOut is the approval policy in force.
type PolicyOut = wire.PolicyOut

// ApprovalsOut lists the writes waiting for a person.
type ApprovalsOut = wire.ApprovalsOut

// AnswerOut says how a waiting write was answered.
type AnswerOut = wire.AnswerOut

func policyOps() []*Op {
	why := "a person sets the policy and answers approvals; an agent must not approve its own writes"
	return []*Op{
		describe[NoIn, PolicyOut]("policy", "show the approval policy: which writes are allowed, asked for or denied", Read, actTimeout).sessionWide().noBrowser().noMCP(why),
		describe[PolicySetIn, PolicyOut]("policy set", "allow, ask for or deny a class of writes or one operation (optionally on pages of an origin)", Write, actTimeout).as(ActControl).sessionWide().noBrowser().changesSettings().noMCP(why),
		describe[PolicyUnsetIn, PolicyOut]("policy unset", "remove one rule of the approval policy (its writes then follow the next most specific rule)", Write, actTimeout).as(ActControl).sessionWide().noBrowser().changesSettings().noMCP(why),
		describe[NoIn, PolicyOut]("policy reset", "remove every rule and restore the default approval timeout: every write allowed", Write, actTimeout).as(ActControl).sessionWide().noBrowser().changesSettings().noMCP(why),
		describe[NoIn, ApprovalsOut]("approvals", "list the writes waiting for a person's approval", Read, actTimeout).sessionWide().noBrowser().noMCP(why),
		describe[ApprovalIDIn, AnswerOut]("approve", "let a waiting write go out", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP(why),
		describe[ApprovalIDIn, AnswerOut]("deny", "refuse a waiting write: it is not sent (DENIED)", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP(why),
	}
}
