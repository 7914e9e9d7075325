package network

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the types
// below are its objects, with the fields the spec requires always
// present. Custom fields start with "_" as the spec asks (_resourceType,
// _error and _transferSize, as Chromium's own export names them).

// HARLog is a HAR file's one object.
type HARLog struct {
	Log HARBody `json:"log"`
}

// HARBody is the log: who made it, the tab, the requests.
type HARBody struct {
	Version string      `json:"version"`
	Creator HARCreator  `json:"creator"`
	Browser *HARCreator `json:"browser,omitempty"`
	Pages   []HARPage   `json:"pages"`
	Entries []HAREntry  `json:"entries"`
	Comment string      `json:"comment,omitempty"`
}

// HARCreator names a program and its version.
type HARCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// HARPage is the tab the requests were made in.
type HARPage struct {
	StartedDateTime string         `json:"startedDateTime"`
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	PageTimings     HARPageTimings `json:"pageTimings"`
}

// HARPageTimings are not measured (-1: not available).
type HARPageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// HAREntry is one request and its response.
type HAREntry struct {
	Pageref         string      `json:"pageref,omitempty"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         HARRequest  `json:"request"`
	Response        HARResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         HARTimings  `json:"timings"`
	ServerIPAddress string      `json:"serverIPAddress,omitempty"`
	Comment         string      `json:"comment,omitempty"`
	ResourceType    string      `json:"_resourceType,omitempty"`
	Error           string      `json:"_error,omitempty"`
	TransferSize    int64       `json:"_transferSize,omitempty"`
}

// HARRequest is a request as sent.
type HARRequest struct {
	Method      string         `json:"method"`
	URL         string         `json:"url"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []HARCookie    `json:"cookies"`
	Headers     []HARNameValue `json:"headers"`
	QueryString []HARNameValue `json:"queryString"`
	PostData    *HARPostData   `json:"postData,omitempty"`
	HeadersSize int64          `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

// HARResponse is a response as received.
type HARResponse struct {
	Status      int            `json:"status"`
	StatusText  string         `json:"statusText"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []HARCookie    `json:"cookies"`
	Headers     []HARNameValue `json:"headers"`
	Content     HARContent     `json:"content"`
	RedirectURL string         `json:"redirectURL"`
	HeadersSize int64          `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

// HARCookie is a cookie sent or set.
type HARCookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Path     string `json:"path,omitempty"`
	Domain   string `json:"domain,omitempty"`
	Expires  string `json:"expires,omitempty"`
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	Secure   bool   `json:"secure,omitempty"`
}

// HARNameValue is a header or a query parameter.
type HARNameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HARPostData is a request's body.
type HARPostData struct {
	MimeType string         `json:"mimeType"`
	Params   []HARNameValue `json:"params"`
	Text     string         `json:"text"`
}

// HARContent is a response's body: its size, type and (bounded) text.
type HARContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

// HARTimings are a request's phases in milliseconds (-1: not applicable).
type HARTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// HARSummary says what a HAR holds.
type HARSummary struct {
	Started   time.Time
	Entries   int // requests in the file
	Bodies    int // responses whose body (or its start) is in it
	BodyBytes int
	Dropped   int // requests past MaxEntries, left out
	Pending   int // requests without a response yet
}

// bodyWait bounds how long a HAR waits for the bodies still being
// fetched: it is written within the caller's deadline whatever a slow
// renderer does.
const bodyWait = 5 * time.Second

// HAROptions are what a HAR is written with.
type HAROptions struct {
	// Version is loupe's, for the creator field.
	Version string
	// Clear starts the capture afresh once written.
	Clear bool
}

// HAR writes the tab's captured traffic as a HAR 1.2 file (JSON). It
// waits a while (bodyWait, or until ctx ends) for the response bodies
// still being fetched.
// Without a capture running it fails with ErrNotCapturing.
func (n *Net) HAR(ctx context.Context, t *engine.Surface, o HAROptions) ([]byte, HARSummary, error) {
	tab, err := TabOf(ctx, t)
	if err != nil {
		return nil, HARSummary{}, err
	}
	n.mu.Lock()
	p := n.pages[tab.ID]
	if p == nil || p.capture == nil {
		n.mu.Unlock()
		return nil, HARSummary{}, ErrNotCapturing
	}
	idle := p.capture.idle
	n.mu.Unlock()
	wait := time.NewTimer(bodyWait)
	defer wait.Stop()
	select {
	case <-idle:
	case <-wait.C:
		// What has arrived is written; the bodies still on their way
		// are left out.
	case <-ctx.Done():
	}
	n.mu.Lock()
	c := p.capture
	if c == nil {
		n.mu.Unlock()
		return nil, HARSummary{}, ErrNotCapturing
	}
	entries := make([]entry, len(c.entries))
	for i, en := range c.entries {
		entries[i] = *en
	}
	sum := HARSummary{Started: c.started, Entries: len(entries), Dropped: c.dropped}
	if o.Clear {
		p.capture = newCapture()
	}
	n.mu.Unlock()

	log := HARLog{Log: HARBody{Version: "1.2", Creator: HARCreator{Name: "loupe", Version: o.Version},
		Pages:   []HARPage{{StartedDateTime: harTime(sum.Started), ID: tab.ID, Title: orURL(tab.Title(), tab.URL()), PageTimings: HARPageTimings{-1, -1}}},
		Entries: make([]HAREntry, 0, len(entries))}}
	if v := tab.Browser().Product(); v != "" {
		name, ver, _ := strings.Cut(v, "/")
		log.Log.Browser = &HARCreator{Name: name, Version: ver}
	}
	if sum.Dropped > 0 {
		log.Log.Comment = fmt.Sprintf("%d requests after the first %d were left out", sum.Dropped, MaxEntries)
	}
	for i := range entries {
		en := &entries[i]
		he := harEntry(en, tab.ID)
		if !en.done {
			sum.Pending++
		}
		if len(en.body) > 0 {
			sum.Bodies++
			sum.BodyBytes += len(en.body)
		}
		log.Log.Entries = append(log.Log.Entries, he)
	}
	data, err := json.MarshalIndent(log, "", "  ")
	return data, sum, err
}

func orURL(title, u string) string {
	if title != "" {
		return title
	}
	return u
}

// harTime is a time as HAR writes it (ISO 8601, milliseconds).
func harTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// harEntry is one request as a HAR entry.
func harEntry(en *entry, page string) HAREntry {
	he := HAREntry{Pageref: page, StartedDateTime: harTime(en.wall), ResourceType: strings.ToLower(en.resourceType), Error: en.failed}
	version := ""
	if en.resp != nil {
		version = httpVersion(en.resp.Protocol)
	}
	he.Request = HARRequest{Method: en.method, URL: en.url, HTTPVersion: version, Cookies: requestCookies(en.reqHeaders),
		Headers: nameValues(en.reqHeaders), QueryString: queryString(en.url), HeadersSize: -1, BodySize: int64(len(en.postData))}
	if en.postData != "" {
		he.Request.PostData = &HARPostData{MimeType: header(en.reqHeaders, "Content-Type"), Params: []HARNameValue{}, Text: en.postData}
	}
	he.Response = HARResponse{HTTPVersion: version, Cookies: []HARCookie{}, Headers: []HARNameValue{}, HeadersSize: -1, BodySize: -1,
		Content: HARContent{Size: en.dataLength, MimeType: "x-unknown", Comment: en.bodyNote}}
	he.Timings = HARTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
	switch {
	case en.resp != nil:
		r := en.resp
		he.Response.Status, he.Response.StatusText = r.Status, r.StatusText
		he.Response.Headers = nameValues(r.Headers)
		he.Response.Cookies = responseCookies(r.Headers)
		he.Response.RedirectURL = header(r.Headers, "Location")
		he.Response.Content.MimeType = r.MimeType
		he.ServerIPAddress = strings.Trim(r.RemoteIPAddress, "[]")
	case en.failed == "" && !en.done:
		he.Comment = "no response yet"
	}
	if en.encoded >= 0 {
		he.TransferSize = en.encoded
	}
	if len(en.body) > 0 {
		if en.bodyBase64 {
			he.Response.Content.Text, he.Response.Content.Encoding = base64.StdEncoding.EncodeToString(en.body), "base64"
		} else {
			he.Response.Content.Text = string(en.body)
		}
		if he.Response.Content.Size < int64(len(en.body)) {
			he.Response.Content.Size = int64(len(en.body))
		}
	}
	he.Timings, he.Time = timings(en)
	return he
}

// timings splits a request's time into HAR's phases, from the response's
// resource timing (milliseconds after its requestTime).
func timings(en *entry) (HARTimings, float64) {
	t := HARTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
	total := 0.0
	if en.done && en.end > en.start {
		total = (en.end - en.start) * 1000
	}
	if en.resp == nil || en.resp.Timing == nil {
		t.Wait = total
		return t, total
	}
	rt := en.resp.Timing
	span := func(a, b float64) float64 {
		if a < 0 || b < a {
			return -1
		}
		return b - a
	}
	first := rt.SendStart
	for _, v := range []float64{rt.ConnectStart, rt.DNSStart} {
		if v >= 0 && v < first {
			first = v
		}
	}
	t.Blocked = max(0, (rt.RequestTime-en.start)*1000+max(first, 0))
	t.DNS, t.Connect, t.SSL = span(rt.DNSStart, rt.DNSEnd), span(rt.ConnectStart, rt.ConnectEnd), span(rt.SSLStart, rt.SSLEnd)
	t.Send = max(0, rt.SendEnd-rt.SendStart)
	t.Wait = max(0, rt.ReceiveHeadersEnd-rt.SendEnd)
	if en.done && en.end > 0 {
		t.Receive = max(0, (en.end-rt.RequestTime)*1000-rt.ReceiveHeadersEnd)
	}
	sum := t.Blocked + max(t.DNS, 0) + max(t.Connect, 0) + t.Send + t.Wait + t.Receive
	return t, sum
}

// httpVersion is a protocol's name as HAR spells it.
func httpVersion(p string) string {
	switch p = strings.ToLower(p); p {
	case "h2":
		return "HTTP/2"
	case "h3", "h3-29":
		return "HTTP/3"
	case "":
		return ""
	}
	return strings.ToUpper(p)
}

// nameValues lists headers by name; a value the protocol joined with
// newlines (Set-Cookie) is one header a line.
func nameValues(h map[string]string) []HARNameValue {
	out := []HARNameValue{}
	for k, v := range h {
		for line := range strings.SplitSeq(v, "\n") {
			out = append(out, HARNameValue{Name: k, Value: line})
		}
	}
	slices.SortStableFunc(out, func(a, b HARNameValue) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out
}

// header is a header's value, by its name in any case.
func header(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// queryString is a URL's query parameters in their order.
func queryString(raw string) []HARNameValue {
	out := []HARNameValue{}
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return out
	}
	for pair := range strings.SplitSeq(u.RawQuery, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, HARNameValue{Name: k, Value: v})
	}
	return out
}

func requestCookies(h map[string]string) []HARCookie {
	out := []HARCookie{}
	line := header(h, "Cookie")
	if line == "" {
		return out
	}
	cs, err := http.ParseCookie(line)
	if err != nil {
		return out
	}
	for _, c := range cs {
		out = append(out, HARCookie{Name: c.Name, Value: c.Value})
	}
	return out
}

func responseCookies(h map[string]string) []HARCookie {
	out := []HARCookie{}
	for line := range strings.SplitSeq(header(h, "Set-Cookie"), "\n") {
		if line == "" {
			continue
		}
		c, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		hc := HARCookie{Name: c.Name, Value: c.Value, Path: c.Path, Domain: c.Domain, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if !c.Expires.IsZero() {
			hc.Expires = harTime(c.Expires)
		}
		out = append(out, hc)
	}
	return out
}

// byteCount says a size for a person.
func byteCount(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
