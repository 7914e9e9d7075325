package network

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// The HAR entry of a recorded request, field by field: headers a line
// each (the protocol joins Set-Cookie with newlines), cookies both ways,
// the query in its order, a binary body base64-encoded, a note on a cut
// body, the phases from the resource timing, a failure as _error.
func TestHAREntry(t *testing.T) {
	t.Parallel()
	resp := &response{Status: 200, StatusText: "OK", Protocol: "h2", MimeType: "image/png", RemoteIPAddress: "[::1]",
		Headers: map[string]string{"Set-Cookie": "a=1; Path=/; HttpOnly\nb=2; Secure", "Content-Type": "image/png"}}
	resp.Timing = &resourceTiming{RequestTime: 100, DNSStart: -1, DNSEnd: -1, ConnectStart: 1, ConnectEnd: 3, SSLStart: -1, SSLEnd: -1, SendStart: 4, SendEnd: 5, ReceiveHeadersEnd: 25}
	en := &entry{id: "1", resourceType: "Image", wall: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), start: 99.998, end: 100.035,
		method: "GET", url: "https://h.example/p.png?x=1&y=a%20b", reqHeaders: map[string]string{"Cookie": "sid=MK; lang=en"},
		resp: resp, dataLength: 3, encoded: 120, done: true, body: []byte{0x89, 'P', 'N'}, bodyBase64: true, bodyNote: "body cut to its first 3 bytes of 9 bytes"}
	he := harEntry(en, "s1")
	if got := he.Response.Headers; len(got) != 3 || got[1].Name != "Set-Cookie" || got[2].Value != "b=2; Secure" {
		t.Errorf("headers: %+v", got)
	}
	if c := he.Response.Cookies; len(c) != 2 || !c[0].HTTPOnly || c[0].Path != "/" || !c[1].Secure {
		t.Errorf("response cookies: %+v", c)
	}
	if c := he.Request.Cookies; len(c) != 2 || c[0] != (HARCookie{Name: "sid", Value: "MK"}) {
		t.Errorf("request cookies: %+v", c)
	}
	if q := he.Request.QueryString; len(q) != 2 || q[1] != (HARNameValue{"y", "a b"}) {
		t.Errorf("query: %+v", q)
	}
	if c := he.Response.Content; c.Encoding != "base64" || c.Text != base64.StdEncoding.EncodeToString(en.body) || !strings.Contains(c.Comment, "cut") {
		t.Errorf("content: %+v", c)
	}
	if he.Request.HTTPVersion != "HTTP/2" || he.ServerIPAddress != "::1" || he.ResourceType != "image" || he.TransferSize != 120 || he.StartedDateTime != "2026-12-02T10:00:00.000Z" {
		t.Errorf("entry: %+v", he)
	}
	tm := he.Timings
	if tm.DNS != -1 || tm.Connect != 2 || tm.SSL != -1 || tm.Send != 1 || tm.Wait != 20 || tm.Receive < 9.9 || tm.Receive > 10.1 || tm.Blocked < 2.9 || tm.Blocked > 3.1 {
		t.Errorf("timings: %+v", tm)
	}
	if he.Time < 35.9 || he.Time > 36.1 {
		t.Errorf("time %v, want blocked+connect+send+wait+receive = 36", he.Time)
	}

	failed := harEntry(&entry{id: "2", method: "GET", url: "http://h/x", failed: "net::ERR_BLOCKED_BY_CLIENT", done: true, encoded: -1}, "s1")
	if failed.Error != "net::ERR_BLOCKED_BY_CLIENT" || failed.Response.Status != 0 || failed.Response.Headers == nil || failed.Timings.Send != 0 {
		t.Errorf("a failed request: %+v", failed)
	}
	pending := harEntry(&entry{id: "3", method: "POST", url: "http://h/y", postData: "a=1", reqHeaders: map[string]string{"content-type": "application/x-www-form-urlencoded"}, encoded: -1}, "s1")
	if pending.Comment != "no response yet" || pending.Request.PostData == nil || pending.Request.PostData.MimeType != "application/x-www-form-urlencoded" || pending.Request.BodySize != 3 {
		t.Errorf("a pending POST: %+v", pending)
	}
}
