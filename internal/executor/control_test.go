package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/settings"
)

// TestControlStage: with browser control off, browser writes are DENIED
// with the command that turns it on; reads, a person's own commands and
// operations without a browser pass.
func TestControlStage(t *testing.T) {
	on, off := settings.Open(t.TempDir()), settings.Open(t.TempDir())
	if _, err := off.Set("controlEnabled", "false"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    *settings.Store
		op   *ops.Op
		code apitype.Code
	}{
		{"write, control on", on, describe[nothing]("click", ops.Write), ""},
		{"write, control off", off, describe[nothing]("click", ops.Write), apitype.Denied},
		{"read, control off", off, describe[nothing]("snapshot", ops.Read), ""},
		{"a person's command, control off", off, describe[nothing]("takeover", ops.Write, as(ops.ActControl)), ""},
		{"no browser, control off", off, describe[nothing]("ops ack", ops.Write, noBrowser), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := enter(t, controlStage{tc.s}, fakeCall(t, tc.op, nil, nil))
			if e := wantCode(t, err, tc.code); e != nil && len(e.Recovery) == 0 {
				t.Fatalf("no way back on: %+v", e)
			}
		})
	}
}
