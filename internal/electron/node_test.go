package electron

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testenv"
)

// These tests run the real classification script in a real Node inspector
// (plain Node, when it is installed), against testdata/fake-electron, a
// stand-in for Electron's main-process API. They check what the transcript
// tests cannot: that the script itself evaluates, finds `electron` both from
// a CommonJS main module and through the command line API's require, and
// detaches exactly the debuggers it attached. They do not prove Electron's
// own behaviour; see docs/electron.md.

var listening = regexp.MustCompile(`Debugger listening on ws://([^/\s]+)/`)

// startNode runs node --inspect on a free loopback port and returns the
// inspector's host:port once the main module has said "fake app ready" (the
// inspector answers before the preload and main module have run). The
// process is killed, by its own handle, when the test ends.
func startNode(t *testing.T, args ...string) string {
	t.Helper()
	node := testenv.Node(t) // the transcript tests cover Inspect without it
	cmd := exec.Command(node, append([]string{"--inspect=127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Each scanner drains its pipe to EOF so node never blocks on it.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "fake app ready" {
				ready <- true
			}
		}
		close(ready)
	}()
	timeout := time.After(20 * time.Second)
	var a string
	select {
	case a = <-addr:
	case <-timeout:
		t.Fatal("node did not open its inspector within 20 s")
	}
	select {
	case ok := <-ready:
		if !ok || a == "" {
			t.Fatal("node exited before its main module ran")
		}
	case <-timeout:
		t.Fatal("the fake app was not ready within 20 s")
	}
	return a
}

func fake(name string) string { return filepath.Join("testdata", "fake-electron", name) }

func TestInspectNode(t *testing.T) {
	t.Parallel()
	want := map[string]Class{
		"A1B2C3D4E5F60718293A4B5C6D7E8F90": {Kind: KindWindow},
		"B2C3D4E5F60718293A4B5C6D7E8F90A1": {Kind: KindWebContentsView},
		"C3D4E5F60718293A4B5C6D7E8F90A1B2": {Kind: KindWebview, ParentTargetID: "A1B2C3D4E5F60718293A4B5C6D7E8F90"},
		"D4E5F60718293A4B5C6D7E8F90A1B2C3": {Kind: KindOther},
		"E5F60718293A4B5C6D7E8F90A1B2C3D4": {Kind: KindWebContentsView},
	}
	// 1 and 4–5 are attached, asked and detached; 2 answers
	// getOrCreateDevToolsTargetId; 3 was attached by the app and stays so;
	// 6 cannot attach.
	wantLog := []string{
		"attach 1", "getTargetInfo 1", "detach 1",
		"getOrCreateDevToolsTargetId 2",
		"getTargetInfo 3",
		"attach 4", "getTargetInfo 4", "detach 4",
		"attach 5", "getTargetInfo 5", "detach 5",
	}
	for _, tc := range []struct{ main, via string }{
		{"main.js", "process.mainModule.require"},
		{"main.mjs", "require"}, // no process.mainModule for an ES module
	} {
		t.Run(tc.main, func(t *testing.T) {
			t.Parallel()
			addr := startNode(t, "--require", "./"+fake("preload.js"), fake(tc.main))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := inspect(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			if r.ElectronVia != tc.via || r.ElectronVersion != "33.2.1" || r.ProcessType != "browser" {
				t.Errorf("electron %q from %q in a %q process, want 33.2.1 from %q in browser", r.ElectronVersion, r.ElectronVia, r.ProcessType, tc.via)
			}
			cs := r.Contents
			if len(cs) != 6 {
				t.Fatalf("got %d contents, want 6: %+v", len(cs), cs)
			}
			byID := map[int]Contents{}
			for _, c := range cs {
				byID[c.ID] = c
			}
			if c := byID[3]; c.HostID != 1 || c.Type != "webview" || c.OwnWindow {
				t.Errorf("guest = %+v", c)
			}
			if c := byID[1]; !c.OwnWindow || c.URL != "file:///app/index.html" {
				t.Errorf("window = %+v", c)
			}
			if c := byID[4]; !c.DevTools {
				t.Errorf("devtools = %+v", c)
			}
			if c := byID[6]; c.TargetID != "" || c.TargetError == "" {
				t.Errorf("unattachable contents = %+v, want no target id and an error", c)
			}
			if got := Classify(cs); !reflect.DeepEqual(got, want) {
				t.Errorf("Classify = %v\nwant %v", got, want)
			}

			// What the fake app saw: ask it over a second session.
			ws, err := resolve(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := evaluate(ctx, ws, "globalThis.__fakeElectron.log.slice().sort()")
			if err != nil {
				t.Fatal(err)
			}
			var log []string
			if err := json.Unmarshal(raw, &log); err != nil {
				t.Fatal(err)
			}
			sorted := slices.Sorted(slices.Values(wantLog))
			if !reflect.DeepEqual(log, sorted) {
				t.Errorf("debugger calls = %q\nwant %q", log, sorted)
			}
		})
	}
}

func TestInspectNodeWithoutElectron(t *testing.T) {
	t.Parallel()
	addr := startNode(t, fake("main.js"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Inspect(ctx, "http://"+addr)
	if !errors.Is(err, ErrNotElectronMain) {
		t.Fatalf("err = %v, want ErrNotElectronMain", err)
	}
	t.Log(err)
}

func TestInspectNodeThrows(t *testing.T) {
	t.Parallel()
	addr := startNode(t, fake("main.js"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, err := resolve(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = evaluate(ctx, ws, "(async () => { await null; throw new TypeError('Object has been destroyed') })()")
	var ee *EvalError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want *EvalError", err)
	}
	t.Log(err)
}
