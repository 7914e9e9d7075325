package grid

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Chromium is the browser binary loupe asks a node for by default:
// Debian's, where its chromium and chromium-driver packages put them.
const Chromium = "/usr/bin/chromium"

// Capabilities is the body of a New Session request: alwaysMatch of
// Chromium (browserName chrome, the binary and args in
// goog:chromeOptions) with the user's capabilities merged over it.
//
// The user's JSON is a capabilities object merged like a JSON merge
// patch (RFC 7396): its objects merge into loupe's key by key, null
// removes a key (goog:chromeOptions.binary null leaves the node's own
// browser), any other value replaces loupe's — except the Chromium
// flags, goog:chromeOptions.args, which are added to loupe's, a flag of
// the same name (before any '=') replacing loupe's. An empty user
// string is loupe's defaults. Bad JSON, or JSON that is not an object,
// is an error.
func Capabilities(args []string, user string) ([]byte, error) {
	opts := map[string]any{
		"binary": Chromium,
		"args":   toAny(args),
		// chromedriver adds --enable-automation, which shows the
		// "controlled by automated test software" bar and sets
		// navigator.webdriver: loupe's own launch never passes it.
		"excludeSwitches": []any{"enable-automation"},
	}
	caps := map[string]any{"browserName": "chrome", "goog:chromeOptions": opts}
	if strings.TrimSpace(user) != "" {
		var patch map[string]any
		if err := CheckCapabilities(user); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(user), &patch)
		if o, ok := patch["goog:chromeOptions"].(map[string]any); ok {
			if a, ok := o["args"].([]any); ok {
				o["args"] = mergeArgs(args, a)
			}
		}
		caps = merge(caps, patch)
	}
	return json.Marshal(map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}})
}

// CheckCapabilities reports whether s is a JSON object (of
// capabilities), saying what is wrong when not.
func CheckCapabilities(s string) error {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return fmt.Errorf("capabilities are not JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return errors.New(`capabilities must be a JSON object, such as {"browserVersion":"156"}`)
	}
	return nil
}

// merge applies patch to doc as a JSON merge patch (RFC 7396).
func merge(doc, patch map[string]any) map[string]any {
	for k, pv := range patch {
		if pv == nil {
			delete(doc, k)
			continue
		}
		po, pok := pv.(map[string]any)
		do, dok := doc[k].(map[string]any)
		if pok && dok {
			doc[k] = merge(do, po)
			continue
		}
		if pok {
			pv = merge(map[string]any{}, po) // a patch's nulls never reach the result
		}
		doc[k] = pv
	}
	return doc
}

// mergeArgs is loupe's flags and the user's: a user flag replaces
// loupe's of the same name, the others are added after loupe's.
func mergeArgs(base []string, user []any) []any {
	name := func(f string) string { n, _, _ := strings.Cut(f, "="); return n }
	given := map[string]bool{}
	for _, a := range user {
		if s, ok := a.(string); ok {
			given[name(s)] = true
		}
	}
	var out []any
	for _, f := range base {
		if !given[name(f)] {
			out = append(out, f)
		}
	}
	return append(out, user...)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
