package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// stdioPeer is a server on a LineTransport over two pipes, as a client on
// the other end of `loupe mcp` sees it.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan []byte
	done  chan error // the server's Run
}

func startStdio(t *testing.T) *stdioPeer {
	t.Helper()
	s, err := New(Options{Backend: &fakeBackend{}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, lines: make(chan []byte, 64), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		p.done <- s.Run(ctx, &LineTransport{In: inR, Out: outW})
		outW.Close()
	}()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		inW.Close() // end of input ends the session
		select {
		case err := <-p.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop when its input ended")
		}
		cancel()
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %.80q: %v", line, err)
	}
}

// reply is one line from the server, decoded.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

// next waits (at most 10 s) for the server's next line.
func (p *stdioPeer) next() reply {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the server closed its output; Run: %v", <-p.done)
		}
		var r reply
		if err := json.Unmarshal(line, &r); err != nil {
			p.t.Fatalf("reply is not JSON: %v\n%s", err, line)
		}
		r.raw = line
		return r
	case <-time.After(10 * time.Second):
		p.t.Fatal("no reply in 10 s")
	}
	return reply{}
}

// TestLineTransportSurvivesMalformedInput sends each bad line followed by
// a ping: the bad line gets the JSON-RPC error it deserves (or, for a
// notification or a response, nothing), and the ping still gets its
// reply, so the session goes on.
func TestLineTransportSurvivesMalformedInput(t *testing.T) {
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	deepParams := `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`
	huge := `{"jsonrpc":"2.0","id":77,"method":"ping","params":{"x":"` + strings.Repeat("a", 64<<20) + `"}}`
	cases := []struct {
		name, line string
		want       string // "CODE ID" of the reply before the ping's; "" none
	}{
		{"not JSON", "not json", "-32700 null"},
		{"truncated", `{"jsonrpc":"2.0","id":4,"method":"pi`, "-32700 null"},
		{"deeper than 1000", deep, "-32700 null"},
		{"deep params", deepParams, "-32700 null"},
		{"64 MiB line", huge, "-32700 null"},
		{"NUL", "\x00", "-32700 null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "-32600 null"},
		{"empty batch", `[]`, "-32600 null"},
		{"bare number", `42`, "-32600 null"},
		{"bare string", `"ping"`, "-32600 null"},
		{"null", `null`, "-32600 null"},
		{"no jsonrpc", `{"id":3,"method":"ping"}`, "-32600 3"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, `-32600 "a"`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":"b","method":"ping"}`, `-32600 "b"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "-32600 null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "-32600 null"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "-32600 null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "-32600 1.5"},
		{"duplicate id, last an object", `{"jsonrpc":"2.0","id":9,"id":{},"method":"ping"}`, "-32600 null"},
		{"method a number (no id)", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, "-32600 null"},
		{"no method", `{"jsonrpc":"2.0","id":6}`, "-32600 6"},
		{"empty object", `{}`, "-32600 null"},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"x"}`, "-32600 7"},
		{"unknown method (the SDK answers)", `{"jsonrpc":"2.0","id":10,"method":"no/such"}`, "-32601 10"},
		{"malformed notification", `{"jsonrpc":"1.0","method":"notifications/initialized"}`, ""},
		{"notification with params a number", `{"jsonrpc":"2.0","method":"notifications/x","params":5}`, ""},
		{"malformed response", `{"jsonrpc":"2.0","id":8,"result":{},"error":{}}`, ""},
		{"response to no request", `{"jsonrpc":"2.0","id":99,"result":{}}`, ""},
		{"blank", "", ""},
		{"spaces", " \t ", ""},
	}
	p := startStdio(t)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := p.next(); r.Error != nil {
		t.Fatalf("initialize: %s", r.raw)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range cases {
		ping := 1000 + i
		p.send(c.line)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, ping))
		// This transport answers a bad line before it reads the ping; a
		// reply of the SDK's own may come after the ping's.
		got, pinged := "", false
		for !pinged || c.want != "" && got == "" {
			r := p.next()
			switch {
			case string(r.ID) == fmt.Sprint(ping) && r.Error == nil:
				pinged = true
			case got != "" || r.Error == nil:
				t.Fatalf("%s: unexpected %s", c.name, r.raw)
			default:
				got = fmt.Sprintf("%d %s", r.Error.Code, r.ID)
			}
		}
		if got != c.want {
			t.Errorf("%s: reply %q, want %q", c.name, got, c.want)
		}
	}
	// And the session still serves tools.
	p.send(`{"jsonrpc":"2.0","id":"last","method":"tools/list"}`)
	if r := p.next(); r.Error != nil || !bytes.Contains(r.Result, []byte(`"browser_snapshot"`)) {
		t.Fatalf("tools/list after the bad lines: %.300s", r.raw)
	}
}

// TestReadLine: lines are split on newlines, a last one without a newline
// counts, and a line over the limit is reported without being kept.
func TestReadLine(t *testing.T) {
	in := "one\r\n\n" + strings.Repeat("x", 100) + "\nfour\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	type got struct {
		line    string
		tooLong bool
	}
	var lines []got
	for {
		line, tooLong, err := readLine(r, 50)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tooLong && line != nil {
			t.Errorf("an over-long line is kept (%d bytes)", len(line))
		}
		lines = append(lines, got{string(line), tooLong})
	}
	want := []got{{"one\r", false}, {"", false}, {"", true}, {"four", false}, {"last", false}}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("lines %+v, want %+v", lines, want)
	}
}
