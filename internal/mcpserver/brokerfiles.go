package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/ops"
)

// maxStaged bounds the files one upload or drop stages through the
// broker: base64 in JSON, they must fit the broker's 64 MiB request.
const maxStaged = 40 << 20

// stage turns the file names of an upload or a drop into the files'
// contents, read here, under Relay: the remote agent's files are on its
// own machine, and the browser's machine gets them in the request (the
// broker saves them in the remote session's own files there). Names
// resolve as a daemon resolves them in a session's files (filesdir: no
// absolute path, no climbing out, no symlink, regular files only).
func (b *Broker) stage(c Call) (Call, error) {
	in, err := ops.Decode(c.Op, c.Input)
	if err != nil {
		return c, err
	}
	var files *[]string
	var contents *[]ops.UploadFile
	switch v := in.(type) {
	case *ops.UploadIn:
		files, contents = &v.Files, &v.Contents
	case *ops.DropIn:
		files, contents = &v.Files, &v.Contents
	default:
		return c, nil
	}
	if len(*files) == 0 {
		return c, nil
	}
	dir := filesdir.Dir(b.Relay)
	total := 0
	for _, name := range *files {
		p, err := dir.Path(name)
		if err != nil {
			if e, ok := apitype.As(err); ok {
				return c, e.Fix("put the file in this agent's files directory (" + b.Relay + ") and name it there, e.g. report.pdf")
			}
			return c, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return c, apitype.Wrap(apitype.FileError, err, "reading %s: %v", name, err)
		}
		if total += len(data); total > maxStaged {
			return c, apitype.Errorf(apitype.BadInput, "one upload through the broker carries at most %d MiB of files", maxStaged>>20)
		}
		*contents = append(*contents, ops.UploadFile{Name: filepath.Base(p), Data: data})
	}
	*files = nil
	raw, err := json.Marshal(in)
	if err != nil {
		return c, err
	}
	c.Input = raw
	return c, nil
}

// fetchBack writes here, under Relay, a file a call made in the remote
// session's files on the browser's machine (a recording), fetched from
// the broker (GET /v1/files/NAME), and returns its path here. A file is
// fetched once: asking for a finished recording's status again gives
// the same path.
func (b *Broker) fetchBack(ctx context.Context, remote string) (string, error) {
	b.mu.Lock()
	local, done := b.fetched[remote]
	b.mu.Unlock()
	if done {
		return local, nil
	}
	name := filepath.Base(remote)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base()+"/v1/files/"+url.PathEscape(name), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+string(b.Token))
	req.Header.Set("Loupe-Session", b.Session)
	resp, err := b.client().Do(req)
	if err != nil {
		return "", apitype.Wrap(apitype.DaemonUnavailable, err, "fetching %s from the broker: %v", name, err).
			Fix("check the SSH forward to the browser's machine, then ask for the file again")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var r apitype.OpResponse
		if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r) == nil && r.Error != nil {
			return "", r.Error
		}
		return "", apitype.Errorf(apitype.FileError, "fetching %s from the broker: %s", name, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, brokerBody+1))
	if err == nil && len(data) > brokerBody {
		err = fmt.Errorf("over %d MiB", brokerBody>>20)
	}
	if err != nil {
		return "", apitype.Wrap(apitype.FileError, err, "fetching %s from the broker: %v", name, err)
	}
	if local, err = b.relay(data, name); err != nil {
		return "", err
	}
	b.mu.Lock()
	if b.fetched == nil {
		b.fetched = map[string]string{}
	}
	b.fetched[remote] = local
	b.mu.Unlock()
	return local, nil
}
