package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/state"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
)

// storageState saves or loads the storage state of the caller's tab's
// partition (package engine/state). The CLI sends and receives the
// file's content; other clients name a file of the session's files.
func storageState(action string) func(ctx context.Context, d *Deps, in *ops.StateIn) (*ops.StorageStateOut, error) {
	return func(ctx context.Context, d *Deps, in *ops.StateIn) (*ops.StorageStateOut, error) {
		return doState(ctx, d, in, action)
	}
}

func doState(ctx context.Context, d *Deps, in *ops.StateIn, action string) (*ops.StorageStateOut, error) {
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	b := t.Browser()
	out := &ops.StorageStateOut{Action: action, Partition: surface.PartitionOf(b, t)}
	if action == "save" {
		st, err := state.Save(ctx, b, t)
		if err != nil {
			return nil, err
		}
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return nil, err
		}
		out.Cookies, out.Origins = len(st.Cookies), len(st.Origins)
		if in.Data {
			out.State = data
			return out, nil
		}
		out.Path, err = d.Files.Save(in.Path, append(data, '\n'))
		return out, err
	}
	data := []byte(in.Content)
	if len(data) == 0 {
		p, err := d.Files.Path(in.Path)
		if err != nil {
			return nil, err
		}
		if data, err = readBounded(p, ops.MaxState); err != nil {
			return nil, apitype.Wrap(apitype.FileError, err, "%v", err)
		}
		out.Path = p
	}
	var st state.State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, apitype.Errorf(apitype.BadInput, "%s is not a storage-state file: %v", in.Path, err)
	}
	loaded, err := state.Load(ctx, b, t, &st)
	if err != nil {
		return nil, err
	}
	out.Cookies, out.Origins, out.NoTab = loaded.Cookies, loaded.Origins, loaded.NoTab
	return out, nil
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, fmt.Errorf("%s: want a regular file of at most %d bytes", path, limit)
	}
	return os.ReadFile(path)
}
