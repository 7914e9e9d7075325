package handlers

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/network"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/routespec"
	"github.com/loupe-dev/loupe/internal/wire"
)

func networkHandlers() map[string]Handler {
	return map[string]Handler{
		"route":         Func(setRoute),
		"route clear":   Func(clearRoutes),
		"routes":        Func(listRoutes),
		"network start": Func(startCapture),
		"network stop":  Func(stopCapture),
	}
}

// setRoute routes the caller's tab's requests that match a pattern. A
// fulfilled body comes from the CLI (which read the person's file), from
// a file of the session's files, or as text; without a Content-Type of
// the caller's, the file's extension or the body itself names one.
func setRoute(ctx context.Context, d *Deps, in *ops.RouteIn) (*ops.RoutesOut, error) {
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	headers := make([]network.Header, 0, len(in.Headers)+1)
	for _, h := range in.Headers {
		p, err := routespec.ParseHeader(h)
		if err != nil {
			return nil, apitype.Errorf(apitype.BadInput, "%v", err)
		}
		headers = append(headers, p)
	}
	action, body, source := network.Continue, []byte(nil), ""
	switch {
	case in.Abort:
		action = network.Abort
	case in.Body != "":
		action, body = network.Fulfill, []byte(in.Body)
	case len(in.Data) > 0 || in.Fulfill != "":
		action, body, source = network.Fulfill, in.Data, filepath.Base(in.Fulfill)
		if !in.Read {
			p, err := d.Files.Path(in.Fulfill)
			if err != nil {
				return nil, err
			}
			if body, err = readBounded(p, ops.MaxRouteBody); err != nil {
				return nil, apitype.Wrap(apitype.FileError, err, "%v", err)
			}
		}
	}
	if action == network.Fulfill && !hasHeader(headers, "Content-Type") {
		headers = append(headers, network.Header{Name: "Content-Type", Value: contentType(source, body)})
	}
	r, err := network.NewRoute(in.Pattern, action, in.Status, headers, body, source)
	if err != nil {
		return nil, apitype.Errorf(apitype.BadInput, "%v", err)
	}
	n := network.Of(t.Browser())
	if err := n.Set(ctx, t, r); err != nil {
		return nil, err
	}
	out := routesOut(n, t)
	out.Set = in.Pattern
	return out, nil
}

func clearRoutes(ctx context.Context, d *Deps, in *ops.RouteClearIn) (*ops.RoutesOut, error) {
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	n := network.Of(t.Browser())
	k, err := n.Clear(ctx, t, in.Pattern)
	if errors.Is(err, network.ErrNoRoute) {
		return nil, apitype.Errorf(apitype.BadInput, "%s has no route %q", t.PageID(), in.Pattern).Fix("list the routes ({1})", apitype.Step{Op: "routes"})
	}
	if err != nil {
		return nil, err
	}
	out := routesOut(n, t)
	out.Cleared = k
	return out, nil
}

func listRoutes(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.RoutesOut, error) {
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	return routesOut(network.Of(t.Browser()), t), nil
}

func routesOut(n *network.Net, t *engine.Surface) *ops.RoutesOut {
	out := &ops.RoutesOut{SurfaceID: t.PageID(), Routes: []wire.Route{}}
	for _, r := range n.Routes(t) {
		w := wire.Route{Pattern: r.Pattern, Action: string(r.Action), Status: r.Status, BodyBytes: r.BodyBytes, Source: r.Source, Hits: r.Hits}
		for _, h := range r.Headers {
			w.Headers = append(w.Headers, h.Name+": "+h.Value)
		}
		out.Routes = append(out.Routes, w)
	}
	return out
}

func hasHeader(hs []network.Header, name string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}

// contentType names a body's type: by its file's extension, else by
// sniffing it as a browser would.
func contentType(file string, body []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(file)); t != "" {
		return t
	}
	return http.DetectContentType(body)
}

func startCapture(ctx context.Context, d *Deps, in *ops.CaptureIn) (*ops.CaptureOut, error) {
	t, err := pageOf(ctx, d.Caller, in.Surface)
	if err != nil {
		return nil, err
	}
	n := network.Of(t.Browser())
	if err := n.Start(ctx, t); err != nil {
		return nil, err
	}
	since, k, ok := n.Capturing(ctx, t)
	return &ops.CaptureOut{SurfaceID: t.PageID(), Capturing: ok, Since: since, Requests: k}, nil
}

func stopCapture(ctx context.Context, d *Deps, in *ops.CaptureIn) (*ops.CaptureOut, error) {
	t, err := pageOf(ctx, d.Caller, in.Surface)
	if err != nil {
		return nil, err
	}
	stopped, err := network.Of(t.Browser()).Stop(ctx, t)
	if err != nil {
		return nil, err
	}
	return &ops.CaptureOut{SurfaceID: t.PageID(), Stopped: stopped}, nil
}

// networkLog lists the session's requests or, with a HAR file named,
// writes the tab's captured traffic: to the CLI, which writes the file
// the person named, or as a new file of the session's files.
func networkLog(ctx context.Context, d *Deps, in *ops.NetworkIn) (*ops.NetworkOut, error) {
	if in.HAR == "" {
		b, err := d.Caller.Browser(ctx)
		if err != nil {
			return nil, err
		}
		return &ops.NetworkOut{Records: mapSlice(b.Events().Network(in.Surface, in.Clear), networkRecord)}, nil
	}
	t, err := pageOf(ctx, d.Caller, in.Surface)
	if err != nil {
		return nil, err
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	data, sum, err := network.Of(t.Browser()).HAR(ctx, t, network.HAROptions{Version: version, Clear: in.Clear})
	if errors.Is(err, network.ErrNotCapturing) {
		return nil, apitype.Errorf(apitype.BadInput, "the traffic of %s is not being captured: start a capture, load what you want, then write the HAR", t.PageID()).
			Fix("start capturing ({1})", apitype.Step{Op: "network start"})
	}
	if err != nil {
		return nil, err
	}
	h := &wire.HARFile{SurfaceID: t.PageID(), Since: sum.Started, Entries: sum.Entries, Bodies: sum.Bodies, BodyBytes: sum.BodyBytes,
		Dropped: sum.Dropped, Pending: sum.Pending}
	if in.Data {
		h.Data = data
	} else if h.Path, err = d.Files.Save(in.HAR, append(data, '\n')); err != nil {
		return nil, err
	}
	return &ops.NetworkOut{Records: []wire.NetworkRecord{}, HAR: h}, nil
}
