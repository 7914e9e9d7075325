package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFraming frames arbitrary input into lines and checks each line's
// verdict: classify never panics, and a line is exactly one of passed on
// (a message the SDK can encode again), answered (one line: a JSON-RPC
// error, parse error or invalid request, with a null id or the line's
// own), or dropped — and a notification is never answered.
func FuzzFraming(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		"not json\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`{"id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping","params":"x"}`,
		`{"jsonrpc":"2.0","id":4,"id":[],"method":"ping"}`,
		`{"jsonrpc":"2.0","method":1}`,
		`{"jsonrpc":"2.0","id":5,"method":"pi`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		`{"a":"\"[[[[","jsonrpc":"2.0","id":6,"method":"ping"}`,
		"42\n\n   \ntrue",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for {
			line, tooLong, err := readLine(r, 4096)
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tooLong {
				continue // answered with a parse error by the reader
			}
			checkFrame(t, line, classify(line))
		}
	})
}

func checkFrame(t *testing.T, line []byte, f frame) {
	t.Helper()
	if f.msg != nil && f.reply != nil {
		t.Fatalf("%q: both passed on and answered", line)
	}
	var m map[string]json.RawMessage
	isObject := json.Unmarshal(line, &m) == nil && m != nil
	_, hasID := m["id"]
	method := m["method"]
	notification := isObject && !hasID && len(method) > 0 && method[0] == '"'
	switch {
	case f.msg != nil:
		if _, err := jsonrpc.EncodeMessage(f.msg); err != nil {
			t.Fatalf("%q: passed on a message the SDK cannot encode: %v", line, err)
		}
	case f.reply != nil:
		if notification {
			t.Fatalf("%q: a notification was answered: %s", line, f.reply)
		}
		if bytes.IndexByte(f.reply, '\n') != len(f.reply)-1 {
			t.Fatalf("%q: the reply is not one line: %q", line, f.reply)
		}
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(f.reply, &r); err != nil || r.JSONRPC != "2.0" || r.ID == nil || r.Error.Message == "" {
			t.Fatalf("%q: not a JSON-RPC error reply: %s", line, f.reply)
		}
		switch r.Error.Code {
		case jsonrpc.CodeParseError:
			if string(r.ID) != "null" {
				t.Fatalf("%q: a parse error with id %s", line, r.ID)
			}
		case jsonrpc.CodeInvalidRequest:
			if string(r.ID) != "null" && !bytes.Equal(r.ID, m["id"]) {
				t.Fatalf("%q: answered with id %s", line, r.ID)
			}
		default:
			t.Fatalf("%q: error code %d", line, r.Error.Code)
		}
	}
}
