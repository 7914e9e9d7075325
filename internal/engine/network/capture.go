package network

import (
	"context"
	"encoding/base64"
	"errors"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
)

// Bounds of a capture. A HAR file holds at most MaxEntries requests and,
// of their response bodies, the first MaxBodyEach bytes each and
// MaxBodyTotal bytes in all; bodies larger than maxBodyFetch are not even
// asked for (the protocol hands a body over whole).
const (
	MaxEntries   = 1000
	MaxBodyEach  = 64 << 10
	MaxBodyTotal = 8 << 20
	maxBodyFetch = 4 << 20
)

// bodyTimeout bounds the fetch of one response body.
const bodyTimeout = 10 * time.Second

// trafficMethods are the Network events a capture records. The engine
// core has Network on in every page session (for its event log).
var trafficMethods = []string{"Network.requestWillBeSent", "Network.responseReceived", "Network.dataReceived",
	"Network.loadingFinished", "Network.loadingFailed"}

// capture is a tab's traffic since a capture started. Guarded by Net.mu.
type capture struct {
	started   time.Time
	entries   []*entry
	byID      map[string]*entry // requests not yet finished, by request id
	dropped   int               // requests past MaxEntries
	bodyBytes int               // body bytes kept
	inflight  int               // body fetches running
	idle      chan struct{}     // closed while inflight is 0
}

func newCapture() *capture {
	idle := make(chan struct{})
	close(idle)
	return &capture{started: time.Now(), byID: map[string]*entry{}, idle: idle}
}

// entry is one request as the protocol reported it.
type entry struct {
	id           string
	resourceType string
	wall         time.Time
	start, end   float64 // the protocol's monotonic seconds
	method, url  string
	reqHeaders   map[string]string
	postData     string
	resp         *response
	dataLength   int64 // decoded bytes received
	encoded      int64 // bytes received on the wire (-1 unknown)
	failed       string
	done         bool
	body         []byte
	bodyBase64   bool // the body is binary (kept encoded in the HAR)
	bodyNote     string
}

// response is the part of Network.Response a HAR entry needs.
type response struct {
	Status            int               `json:"status"`
	StatusText        string            `json:"statusText"`
	Headers           map[string]string `json:"headers"`
	MimeType          string            `json:"mimeType"`
	Protocol          string            `json:"protocol"`
	RemoteIPAddress   string            `json:"remoteIPAddress"`
	EncodedDataLength float64           `json:"encodedDataLength"`
	Timing            *resourceTiming   `json:"timing"`
}

// resourceTiming is the protocol's ResourceTiming: milliseconds after
// RequestTime (seconds), -1 for a phase that did not happen.
type resourceTiming struct {
	RequestTime       float64 `json:"requestTime"`
	DNSStart          float64 `json:"dnsStart"`
	DNSEnd            float64 `json:"dnsEnd"`
	ConnectStart      float64 `json:"connectStart"`
	ConnectEnd        float64 `json:"connectEnd"`
	SSLStart          float64 `json:"sslStart"`
	SSLEnd            float64 `json:"sslEnd"`
	SendStart         float64 `json:"sendStart"`
	SendEnd           float64 `json:"sendEnd"`
	ReceiveHeadersEnd float64 `json:"receiveHeadersEnd"`
}

// trafficEvent is the union of the fields of the Network events recorded.
type trafficEvent struct {
	RequestID string  `json:"requestId"`
	Timestamp float64 `json:"timestamp"`
	WallTime  float64 `json:"wallTime"`
	Type      string  `json:"type"`
	Request   struct {
		URL             string            `json:"url"`
		Method          string            `json:"method"`
		Headers         map[string]string `json:"headers"`
		PostData        string            `json:"postData"`
		PostDataEntries []struct {
			Bytes string `json:"bytes"`
		} `json:"postDataEntries"`
	} `json:"request"`
	RedirectResponse  *response `json:"redirectResponse"`
	Response          *response `json:"response"`
	DataLength        int64     `json:"dataLength"`
	EncodedDataLength float64   `json:"encodedDataLength"`
	ErrorText         string    `json:"errorText"`
	Canceled          bool      `json:"canceled"`
	BlockedReason     string    `json:"blockedReason"`
}

// ErrNotCapturing means a HAR was asked of a tab whose traffic is not
// being captured.
var ErrNotCapturing = errors.New("the tab's traffic is not being captured")

// Start starts capturing the tab's traffic (its frames' too), or starts
// it afresh when it runs: what was captured is dropped.
func (n *Net) Start(ctx context.Context, t *engine.Surface) error {
	tab, err := TabOf(ctx, t)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.pageLocked(tab)
	if p.capture == nil {
		n.capturing.Add(1)
	}
	p.capture = newCapture()
	return nil
}

// Stop ends the tab's capture and drops what it held; it reports whether
// one ran.
func (n *Net) Stop(ctx context.Context, t *engine.Surface) (bool, error) {
	tab, err := TabOf(ctx, t)
	if err != nil {
		return false, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.pages[tab.ID]
	if p == nil || p.capture == nil {
		return false, nil
	}
	p.capture = nil
	n.capturing.Add(-1)
	return true, nil
}

// Capturing reports whether the tab's traffic is being captured, since
// when, and how many requests are held.
func (n *Net) Capturing(ctx context.Context, t *engine.Surface) (since time.Time, requests int, ok bool) {
	tab, err := TabOf(ctx, t)
	if err != nil {
		return time.Time{}, 0, false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if p := n.pages[tab.ID]; p != nil && p.capture != nil {
		return p.capture.started, len(p.capture.entries), true
	}
	return time.Time{}, 0, false
}

// traffic records a Network event of the tab's, while a capture runs. It
// runs on the connection's reader (a tap): it only files the event, and
// starts a body's fetch on a goroutine of the browser's.
func (n *Net) traffic(p *pageNet, s engine.Session, ev cdp.Event) {
	if n.capturing.Load() == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	c := p.capture
	if c == nil {
		return
	}
	var e trafficEvent
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.RequestID == "" {
		return
	}
	switch ev.Method {
	case "Network.requestWillBeSent":
		if old := c.byID[e.RequestID]; old != nil && e.RedirectResponse != nil {
			// A redirect reuses the request id: the earlier hop is done.
			old.resp, old.done, old.end = e.RedirectResponse, true, e.Timestamp
			delete(c.byID, e.RequestID)
		}
		if len(c.entries) >= MaxEntries {
			c.dropped++
			return
		}
		en := &entry{id: e.RequestID, resourceType: e.Type, start: e.Timestamp, method: e.Request.Method, url: e.Request.URL,
			reqHeaders: e.Request.Headers, postData: e.Request.PostData, encoded: -1}
		if e.WallTime > 0 {
			en.wall = time.Unix(0, int64(e.WallTime*1e9))
		} else {
			en.wall = time.Now()
		}
		if en.postData == "" {
			for _, d := range e.Request.PostDataEntries {
				b, err := base64.StdEncoding.DecodeString(d.Bytes)
				if err == nil {
					en.postData += string(b)
				}
			}
		}
		c.entries = append(c.entries, en)
		c.byID[e.RequestID] = en
	case "Network.responseReceived":
		if en := c.byID[e.RequestID]; en != nil && e.Response != nil {
			en.resp = e.Response
			if en.resourceType == "" {
				en.resourceType = e.Type
			}
		}
	case "Network.dataReceived":
		if en := c.byID[e.RequestID]; en != nil {
			en.dataLength += e.DataLength
		}
	case "Network.loadingFailed":
		if en := c.byID[e.RequestID]; en != nil {
			en.failed, en.done, en.end = e.ErrorText, true, e.Timestamp
			if e.BlockedReason != "" {
				en.failed += " (blocked: " + e.BlockedReason + ")"
			}
			delete(c.byID, e.RequestID)
		}
	case "Network.loadingFinished":
		en := c.byID[e.RequestID]
		if en == nil {
			return
		}
		en.done, en.end, en.encoded = true, e.Timestamp, int64(e.EncodedDataLength)
		delete(c.byID, e.RequestID)
		if !n.wantsBody(c, en) {
			return
		}
		if c.inflight == 0 {
			c.idle = make(chan struct{})
		}
		c.inflight++
		p.page.Browser().Go(func(ctx context.Context) { n.fetchBody(ctx, p, c, s, en) })
	}
}

// wantsBody reports whether a finished request's body is worth asking
// for: a response with a body, within the bounds. Caller holds n.mu.
func (n *Net) wantsBody(c *capture, en *entry) bool {
	switch {
	case en.resp == nil, en.resp.Status == 204, en.resp.Status == 304, en.resp.Status >= 300 && en.resp.Status < 400:
		return false
	case en.dataLength > maxBodyFetch:
		en.bodyNote = "body not kept: larger than 4 MiB"
		return false
	case c.bodyBytes >= MaxBodyTotal:
		en.bodyNote = "body not kept: the capture's 8 MiB of bodies are used up"
		return false
	}
	return true
}

// fetchBody asks for a finished response's body and keeps its first
// MaxBodyEach bytes, within the capture's total.
func (n *Net) fetchBody(ctx context.Context, p *pageNet, c *capture, s engine.Session, en *entry) {
	ctx, cancel := context.WithTimeout(ctx, bodyTimeout)
	defer cancel()
	var res struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	err := s.Call(ctx, "Network.getResponseBody", map[string]string{"requestId": en.id}, &res)
	var body []byte
	if err == nil {
		body = []byte(res.Body)
		if res.Base64Encoded {
			body, err = base64.StdEncoding.DecodeString(res.Body)
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	defer func() {
		if c.inflight--; c.inflight == 0 {
			close(c.idle)
		}
	}()
	if p.capture != c {
		return // stopped or started afresh meanwhile
	}
	switch {
	case err != nil:
		en.bodyNote = "body not available: " + err.Error()
		return
	case c.bodyBytes >= MaxBodyTotal:
		en.bodyNote = "body not kept: the capture's 8 MiB of bodies are used up"
		return
	}
	keep := min(len(body), MaxBodyEach, MaxBodyTotal-c.bodyBytes)
	for !res.Base64Encoded && keep < len(body) && keep > 0 && !utf8.RuneStart(body[keep]) {
		keep-- // text is cut between characters
	}
	if keep < len(body) {
		en.bodyNote = "body cut to its first " + byteCount(keep) + " of " + byteCount(len(body))
	}
	en.body, en.bodyBase64 = body[:keep], res.Base64Encoded
	c.bodyBytes += keep
}
