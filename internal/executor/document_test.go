package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestDocumentStage: a write carrying a document token runs only while
// its tab shows that document (STALE_REF, with a new snapshot as the way
// on); reads and writes without one pass.
func TestDocumentStage(t *testing.T) {
	click := describe[nothing]("click", ops.Write)
	for _, tc := range []struct {
		name  string
		op    *ops.Op
		token string
		page  *fakePage
		code  apitype.Code
	}{
		{"no token", click, "", &fakePage{id: "s1", doc: "d-1"}, ""},
		{"same document", click, "d-1", &fakePage{id: "s1", doc: "d-1"}, ""},
		{"another document", click, "d-1", &fakePage{id: "s1", doc: "d-2"}, apitype.StaleRef},
		{"no browser", click, "d-1", nil, apitype.StaleRef},
		{"a read", describe[nothing]("snapshot", ops.Read), "d-1", &fakePage{id: "s1", doc: "d-2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, nil, tc.page)
			c.req.DocumentToken = tc.token
			_, err := enter(t, documentStage{}, c)
			if e := wantCode(t, err, tc.code); e != nil && (len(e.Recovery) == 0 || e.Recovery[0].Op != "snapshot") {
				t.Fatalf("recovery %+v", e.Recovery)
			}
			if tc.code == "" && c.isWrite() && c.write.Document != tc.token {
				t.Fatalf("the write's document %q", c.write.Document)
			}
		})
	}
}
