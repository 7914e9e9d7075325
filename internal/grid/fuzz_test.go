package grid

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReplies: whatever a Grid (or whatever answers at its address)
// sends, the parsers of its replies never panic; an error's message is
// one bounded line; a session read from a reply has an id, and the CDP
// endpoint made of its se:cdp is a ws URL on the Grid's own address.
// Seeds: testdata/fuzz/FuzzReplies (replies of Grid 4.21 and chromedriver
// seen here, cut down, and malformed ones).
func FuzzReplies(f *testing.F) {
	for _, s := range []string{
		`{"value":{"ready":true,"message":"Selenium Grid ready.","nodes":[{"id":"n","uri":"http://127.0.0.1:4444","availability":"UP","slots":[{"session":null}]}]}}`,
		`{"value":{"sessionId":"b5dd","capabilities":{"se:cdp":"ws://127.0.0.1:4444/session/b5dd/se/cdp","goog:processID":1}}}`,
		`{"value":{"error":"session not created","message":"Could not start a new session. New session request timed out \nHost info"}}`,
		"<html>502</html>", "", "{", `{"value":null}`, `{"value":{"nodes":[{"slots":[{"session":{"sessionId":""}}]}]}}`,
	} {
		f.Add([]byte(s), 500)
	}
	base, _ := url.Parse("http://127.0.0.1:4444/wd")
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		e := parseError(status, body)
		for _, s := range []string{e.Code, e.Message} {
			if strings.Contains(s, "\n") || len(s) > maxMessage+len("HTTP -9223372036854775808: …") {
				t.Fatalf("error field %q is not one bounded line", s)
			}
		}
		if e.Message == "" {
			t.Fatal("an error without a message")
		}
		if utf8.Valid(body) && !utf8.ValidString(e.Message) {
			t.Fatalf("message %q cut inside a character", e.Message)
		}
		_ = e.Error()
		if c, err := parseCreated(body); err == nil {
			if c.ID == "" {
				t.Fatal("a session without an id")
			}
			if ws, err := cdpEndpoint(base, c.CDP); err == nil {
				u, perr := url.Parse(ws)
				if perr != nil || u.Scheme != "ws" || u.Host != base.Host || u.User != nil {
					t.Fatalf("CDP endpoint %q of se:cdp %q", ws, c.CDP)
				}
			}
		}
		if st, err := parseStatus(body); err == nil {
			if st.Used() < 0 || st.Free() > len(body) {
				t.Fatalf("status %+v", st)
			}
			for _, n := range st.Nodes {
				if len(n.Sessions) > n.Slots {
					t.Fatalf("node %+v has more sessions than slots", n)
				}
			}
		}
	})
}
