package ops

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/internal/wire"
)

// StateIn is the input of state: save or load a storage state (cookies,
// local and session storage) of the caller's partition, in the shape of
// Playwright's storage-state file. The CLI reads and writes FILE itself
// (any path its user names, never overwritten); other clients name a
// file of the session's files directory.
type StateIn struct {
	Path string `json:"path" arg:"FILE" help:"the storage-state file" mcphelp:"a file name in the session's files (save writes a new one)"`
	// Data carries the state: the file's content for a load, and asks
	// for the state in the reply of a save (the CLI's).
	Content json.RawMessage `json:"content,omitempty" mcp:"-" cli:"the content of FILE, which the CLI reads"`
	Data    bool            `json:"data,omitempty" mcp:"-" cli:"set for save: the CLI writes FILE"`
}

// MaxState bounds a storage-state file.
const MaxState = 16 << 20

// Validate checks the file's name and the content's size.
func (in *StateIn) Validate() error {
	if in.Path == "" && len(in.Content) == 0 {
		return usage("missing %s", fld("path"))
	}
	if len(in.Content) > MaxState {
		return usage("a storage state of %d bytes: at most %d MiB", len(in.Content), MaxState>>20)
	}
	if strings.ContainsRune(in.Path, 0) || len(in.Path) > 4096 || filepath.Base(in.Path) == "." {
		return usage("%s %q: want a file name", fld("path"), in.Path)
	}
	return nil
}

// StorageStateOut is state's output.
type StorageStateOut = wire.StorageStateOut

func stateOps() []*Op {
	return []*Op{
		describe[StateIn, StorageStateOut]("state save", "save the partition's cookies and local and session storage to FILE (Playwright's storage-state file; never overwritten)", Write, actTimeout).as(ActState).
			mcp(Tool{Name: "browser_storage_state", Select: "action", Value: "save", Default: true, Desc: "Save (action save, the default) or load (action load) the cookies and local and session storage of your tab's partition, as a Playwright storage-state file in the session's files; load into a temp partition to start signed in."}),
		describe[StateIn, StorageStateOut]("state load", "load cookies and local and session storage from FILE (Playwright's storage-state file) into the partition", Write, actTimeout).as(ActState).
			mcp(Tool{Name: "browser_storage_state", Select: "action", Value: "load"}),
	}
}
