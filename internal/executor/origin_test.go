package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestOriginStage: an agent may not open local files or the browser's own
// pages (DENIED) unless the caller may (Request.LocalPages); web pages
// pass, and so does anything that opens no address.
func TestOriginStage(t *testing.T) {
	open := describe[ops.OpenIn]("open", ops.Write, as(ops.ActNavigate))
	tabNew := describe[ops.TabNewIn]("tab new", ops.Write, as(ops.ActNavigate), sessionWide)
	for _, tc := range []struct {
		name  string
		op    *ops.Op
		in    any
		local bool
		code  apitype.Code
	}{
		{"a web page", open, &ops.OpenIn{URL: "https://example.test/"}, false, ""},
		{"a local file", open, &ops.OpenIn{URL: "file:///etc/passwd"}, false, apitype.Denied},
		{"the browser's settings", tabNew, &ops.TabNewIn{URL: "CHROME://settings"}, false, apitype.Denied},
		{"a local file, allowed", open, &ops.OpenIn{URL: "file:///tmp/x.html"}, true, ""},
		{"a blank tab", tabNew, &ops.TabNewIn{}, false, ""},
		{"no address", describe[nothing]("click", ops.Write), nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, tc.in, nil)
			c.req.LocalPages = tc.local
			_, err := enter(t, originStage{}, c)
			wantCode(t, err, tc.code)
		})
	}
	for raw, want := range map[string]string{"https://a.test:8443/x?y": "https://a.test:8443", "file:///tmp/x": "file://", "chrome://settings/p": "chrome://settings",
		"about:blank": "", "not a url": "", "": ""} {
		if got := originOf(raw); got != want {
			t.Errorf("originOf(%q) = %q, want %q", raw, got, want)
		}
	}
}
