package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Digest names what a write asked for: its operation and its input, so a
// person reading the ledger can tell two writes apart without their
// arguments (which may hold secrets) being stored.
func Digest(op string, in any) string {
	b, _ := json.Marshal(in)
	h := sha256.Sum256(append([]byte(op+"\x00"), b...))
	return hex.EncodeToString(h[:8])
}

// KeptInput is what the ledger keeps of a write's input (its JSON): all of
// it but the bytes of the files an upload sent (their names and sizes
// stay) and, for a write that types a secret, its text.
func KeptInput(in []byte, secret bool) string {
	kept := withoutRouteBody([]byte(withoutStateContent([]byte(withoutFileData(in)))))
	if secret {
		kept = withoutSecret([]byte(kept))
	}
	return kept
}

// withoutFileData keeps, of the files an upload sent, their names and
// sizes, not their bytes: the ledger says what was handed to the page
// (history --as script asks for the files by name), and a row does not
// carry megabytes.
func withoutFileData(in []byte) string {
	if !bytes.Contains(in, []byte(`"contents"`)) {
		return string(in)
	}
	var m map[string]json.RawMessage
	var files []struct {
		Name string `json:"name"`
		Data []byte `json:"data"`
	}
	if json.Unmarshal(in, &m) != nil || json.Unmarshal(m["contents"], &files) != nil {
		return string(in)
	}
	type kept struct {
		Name string `json:"name"`
		Size int    `json:"size"`
	}
	out := make([]kept, len(files))
	for i, f := range files {
		out[i] = kept{f.Name, len(f.Data)}
	}
	m["contents"], _ = json.Marshal(out)
	b, _ := json.Marshal(m)
	return string(b)
}

// withoutStateContent keeps of a storage state a write sent (state load)
// only its size: it holds the session's cookies, which are kept nowhere.
func withoutStateContent(in []byte) string {
	if !bytes.Contains(in, []byte(`"content"`)) {
		return string(in)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(in, &m) != nil || m["content"] == nil {
		return string(in)
	}
	m["content"], _ = json.Marshal(map[string]any{"withheld": "it holds cookies", "bytes": len(m["content"])})
	b, _ := json.Marshal(m)
	return string(b)
}

// withoutRouteBody keeps of the body a route answers with (route's body
// or body_data) its size and a digest, not its bytes: a mock may be
// megabytes, or hold what a page must not see twice (tokens). The digest
// tells two routes' bodies apart.
func withoutRouteBody(in []byte) string {
	if !bytes.Contains(in, []byte(`"pattern"`)) || !bytes.Contains(in, []byte(`"body`)) {
		return string(in)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(in, &m) != nil || m["pattern"] == nil {
		return string(in)
	}
	for _, k := range []string{"body", "body_data"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var body []byte // body is a JSON string, body_data base64 (a []byte)
		if k == "body" {
			var s string
			_ = json.Unmarshal(raw, &s)
			body = []byte(s)
		} else {
			_ = json.Unmarshal(raw, &body)
		}
		sum := sha256.Sum256(body)
		m[k], _ = json.Marshal(map[string]any{"withheld": "a route's response body", "bytes": len(body), "sha256": hex.EncodeToString(sum[:8])})
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// withoutSecret is an input with its text taken out and marked secret:
// what is typed into a password field is kept nowhere.
func withoutSecret(in []byte) string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	m["text"], m["secret"] = "", true
	b, _ := json.Marshal(m)
	return string(b)
}
