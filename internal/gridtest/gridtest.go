// Package gridtest starts a Selenium Grid 4 standalone server on a free
// loopback port for tests: the server of the npm package that
// selenium/package-lock.json pins (scripts/selenium.sh installs it in
// loupe's cache, outside the tree), Debian's chromedriver and Chromium.
// A test that lacks Java, the server or chromedriver skips, naming the
// command that provides it (testenv.Missing); under make test that is a
// failure.
//
// Starting one takes some seconds of a JVM (3.2 s to ready here, idle
// machine): share one per test package and keep the tests on it few.
package gridtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/grid"
	"github.com/loupe-dev/loupe/internal/testenv"
)

// The lock of the server's package, as scripts/selenium.sh installs it.
var (
	//go:embed selenium/package.json
	packageJSON []byte
	//go:embed selenium/package-lock.json
	packageLock []byte
)

// JarEnv names a Selenium server jar to use instead of the installed one.
const JarEnv = "LOUPE_SELENIUM_JAR"

// readyTimeout bounds a Grid's start: a JVM on a busy 2-core machine.
const readyTimeout = 90 * time.Second

// Options say how the Grid runs.
type Options struct {
	// MaxSessions is the number of slots of its one node (default 1).
	MaxSessions int
	// QueueTimeout is how long it keeps a new-session request before it
	// answers "session not created … timed out" (default 10 s). The
	// Grid counts the browser's start in it: on a loaded 2-core machine
	// Chromium took more than 5 s to start.
	QueueTimeout time.Duration
}

// Grid is a Selenium Grid 4 standalone server started for a test.
type Grid struct {
	// URL is its address, http://127.0.0.1:PORT.
	URL string
	// PID is the server's process id (its process group too: its
	// chromedrivers and their browsers are in it).
	PID int
	// Startup is how long it took to answer ready.
	Startup time.Duration

	cmd  *exec.Cmd
	log  string
	tmp  string // TMPDIR of the Grid and all it starts
	done chan struct{}
	c    *grid.Client
}

// Jar is the Selenium server jar: JarEnv's, else the one
// scripts/selenium.sh installed for the lock; "" when there is none.
func Jar() string {
	if j := os.Getenv(JarEnv); j != "" {
		return j
	}
	h := sha256.New()
	h.Write(packageJSON)
	h.Write(packageLock)
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(cache, "loupe", "selenium", hex.EncodeToString(h.Sum(nil))[:16], "node_modules", "@nightwatch", "selenium-server", "lib")
	jars, _ := filepath.Glob(filepath.Join(dir, "selenium-server-*.jar"))
	if len(jars) != 1 {
		return ""
	}
	return jars[0]
}

// Require skips t (or fails it under make test) unless Java, the server
// and chromedriver are here; it returns their paths.
func Require(t testing.TB) (java, jar, chromedriver string) {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		testenv.Missing(t, "Java", "`scripts/ensure-deb.sh java openjdk-17-jre-headless` (make test does)")
	}
	if chromedriver, err = exec.LookPath("chromedriver"); err != nil {
		testenv.Missing(t, "chromedriver", "`scripts/ensure-deb.sh chromedriver chromium-driver` (make test does)")
	}
	if jar = Jar(); jar == "" {
		testenv.Missing(t, "the Selenium Grid server", "`scripts/selenium.sh` (make corpus installs it, outside the tree)")
	}
	return java, jar, chromedriver
}

// Start starts a Grid standalone on a free loopback port, waits until it
// is ready, and stops it (with its drivers and browsers) when the test
// ends.
func Start(t testing.TB, o Options) *Grid {
	t.Helper()
	java, jar, driver := Require(t)
	if o.MaxSessions == 0 {
		o.MaxSessions = 1
	}
	if o.QueueTimeout == 0 {
		o.QueueTimeout = 10 * time.Second
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "grid.log")
	logf, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	queue := strconv.Itoa(max(1, int(o.QueueTimeout/time.Second)))
	// chromedriver is named, not looked for: the Grid's Selenium
	// Manager otherwise runs at start and at every new session to find
	// drivers, which costs seconds and reaches for the network to look
	// up driver versions (SE_OFFLINE keeps it from that wherever it
	// still runs).
	// The JVM compiles with its quick compiler only, and collects on one
	// thread: a test's Grid lives a minute, too short for the optimizing
	// compiler to pay for itself (TestGrid, four pairs in turn: 26.4
	// against 32.0 core-s; a start to ready 2.9 against 4.8).
	cmd := exec.Command(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dwebdriver.chrome.driver="+driver, "-jar", jar, "standalone",
		"--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--selenium-manager", "false", "--detect-drivers", "false",
		"--driver-configuration", "display-name=chromium", `stereotype={"browserName":"chrome"}`,
		"max-sessions="+strconv.Itoa(o.MaxSessions), "webdriver-executable="+driver,
		"--override-max-sessions", "true",
		"--session-request-timeout", queue, "--session-request-timeout-period", "1",
		"--log-level", "WARNING")
	// The drivers and browsers it starts keep their temporary files (a
	// killed Chromium leaves its singleton socket's directory behind) in
	// a directory of the Grid's, removed after it stops.
	tmp, err := os.MkdirTemp("", "loupe-grid-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "SE_OFFLINE=true", "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: the drivers it starts and their browsers
	// are stopped with it, by the group's id.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		t.Fatalf("starting the Selenium Grid: %v", err)
	}
	g := &Grid{URL: "http://127.0.0.1:" + strconv.Itoa(port), PID: cmd.Process.Pid, cmd: cmd, log: log, tmp: tmp, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(g.done) }()
	t.Cleanup(g.stop)
	if g.c, err = grid.New(g.URL); err != nil {
		t.Fatal(err)
	}
	if err := g.waitReady(o.MaxSessions); err != nil {
		t.Fatalf("the Selenium Grid did not start: %v\n%s", err, g.Log())
	}
	g.Startup = time.Since(start)
	return g
}

// waitReady polls /status — the Grid says nothing else when it is ready —
// every 100 ms until its node offers every slot, or readyTimeout.
func (g *Grid) waitReady(slots int) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := g.c.Status(ctx)
		if err == nil && st.Ready && st.Free() == slots {
			return nil
		}
		select {
		case <-g.done:
			return fmt.Errorf("it exited (%v)", g.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("not ready in %v (last: %v)", readyTimeout, err)
		case <-tick.C:
		}
	}
}

// stop ends the server's process group and waits for the server.
func (g *Grid) stop() {
	_ = syscall.Kill(-g.PID, syscall.SIGKILL)
	<-g.done
	g.c.Close()
	// Best effort: a killed browser's helper may still write for a moment.
	_ = os.RemoveAll(g.tmp)
}

// Log is what the server wrote.
func (g *Grid) Log() string {
	b, _ := os.ReadFile(g.log)
	return string(b)
}

// Status is the Grid's /status.
func (g *Grid) Status(t testing.TB) *grid.Status {
	t.Helper()
	st, err := g.c.Status(context.Background())
	if err != nil {
		t.Fatalf("the Grid's status: %v", err)
	}
	return st
}

// WaitFree waits until the Grid has n free slots, polling /status every
// 50 ms (the Grid frees a slot as it answers a delete, but a delete sent
// as a daemon stops may still be on its way) for at most 15 s.
func (g *Grid) WaitFree(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st := g.Status(t)
		if st.Free() == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Grid has %d free slots, not %d: %+v", st.Free(), n, st.Nodes)
		}
		time.Sleep(50 * time.Millisecond) // a bounded poll: the Grid announces no freed slot
	}
}

// BrowserPID is the process id of the browser of a WebDriver session, as
// the Grid's /status lists it (goog:processID); 0 when not listed.
func (g *Grid) BrowserPID(t testing.TB, session string) int {
	t.Helper()
	resp, err := http.Get(g.URL + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var st struct {
		Value struct {
			Nodes []struct {
				Slots []struct {
					Session *struct {
						SessionID    string `json:"sessionId"`
						Capabilities struct {
							PID int `json:"goog:processID"`
						} `json:"capabilities"`
					} `json:"session"`
				} `json:"slots"`
			} `json:"nodes"`
		} `json:"value"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("the Grid's status: %v\n%s", err, bytes.TrimSpace(body))
	}
	for _, n := range st.Value.Nodes {
		for _, s := range n.Slots {
			if s.Session != nil && s.Session.SessionID == session {
				return s.Session.Capabilities.PID
			}
		}
	}
	return 0
}

// freePort is a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
