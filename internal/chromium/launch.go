package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// LaunchOptions says how to start a browser. The zero value of each field
// means the default.
type LaunchOptions struct {
	Binary     string   // from Find
	ProfileDir string   // private --user-data-dir; required
	Headed     bool     // show a window (needs a display)
	Args       []string // extra command-line flags, appended last
	// Stderr also receives the browser's stderr (a short tail is always
	// kept for error messages).
	Stderr io.Writer
}

// Flags returns the command line loupe starts Chromium with, without the
// binary. They keep Chromium from reaching for the network on its own, from
// throttling background tabs an agent still drives, and from showing
// first-run UI, and make it look to sites like the browser a person
// uses: AutomationControlled off keeps navigator.webdriver false (it is
// true under remote debugging otherwise), and --enable-automation, which
// shows the "controlled by automated test software" banner, is never
// passed. --no-sandbox is added only when running as root, where Chromium
// refuses to start without it.
func Flags(o LaunchOptions) []string {
	f := []string{
		"--remote-debugging-pipe",
		"--user-data-dir=" + o.ProfileDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-extensions",
		"--disable-breakpad",
		"--disable-crash-reporter",
		"--disable-quic",
		"--disable-background-timer-throttling",
		"--disable-backgrounding-occluded-windows",
		"--disable-renderer-backgrounding",
		"--disable-hang-monitor",
		"--disable-dev-shm-usage",
		// WebUIOmniboxPopup and its two variants: Chromium preloads the
		// address bar's WebUI popup in a renderer of its own at every
		// start, headless too, which was about half the CPU of starting
		// a browser (0.8 of 1.5 core-seconds, Chromium 156); loupe never
		// types in the address bar, and a person who does gets the
		// native popup.
		"--disable-features=" + strings.Join(disabledFeatures, ","),
		"--site-per-process",
		"--password-store=basic",
		"--use-mock-keychain",
		"--mute-audio",
		"--window-size=1280,720",
		"--disable-blink-features=AutomationControlled",
	}
	if !o.Headed {
		f = append(f, "--headless", "--hide-scrollbars")
	}
	if os.Geteuid() == 0 {
		f = append(f, "--no-sandbox")
	}
	f = append(f, o.Args...)
	return append(f, "about:blank")
}

// disabledFeatures are the Chromium features loupe turns off (see Flags).
var disabledFeatures = []string{
	"Translate", "OptimizationHints", "MediaRouter", "AutofillServerCommunication",
	"WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup",
}

// Browser is a launched Chromium process and its protocol connection.
type Browser struct {
	Conn    *cdp.Conn
	PID     int
	Profile string
	// Version is Browser.getVersion's reply, asked once at launch.
	Version Version

	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for
	tail   *tailBuffer
	stop   sync.Once
}

// pidFile is where Launch records the browser so that a later Reap can end
// it if this process dies without stopping it.
func pidFile(profile string) string { return filepath.Join(filepath.Dir(profile), "browser.pid") }

// Launch starts Chromium and waits until it answers on the pipe. On any
// failure nothing is left running.
func Launch(ctx context.Context, o LaunchOptions) (*Browser, error) {
	if o.Binary == "" || o.ProfileDir == "" {
		return nil, errors.New("chromium: Binary and ProfileDir are required")
	}
	if err := os.MkdirAll(o.ProfileDir, 0o700); err != nil {
		return nil, fmt.Errorf("chromium: profile: %w", err)
	}
	// The browser reads commands on fd 3 and writes replies on fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	tail := &tailBuffer{max: 8 << 10}
	cmd := exec.Command(o.Binary, Flags(o)...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.Stdout = nil
	cmd.Stderr = tail
	if o.Stderr != nil {
		cmd.Stderr = io.MultiWriter(tail, o.Stderr)
	}
	cmd.SysProcAttr = procAttr()
	// Chromium keeps its crash database and caches under XDG dirs even with
	// --user-data-dir; keep them in the session's directory, not in $HOME.
	base := filepath.Dir(o.ProfileDir)
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(base, "xdg-config"),
		"XDG_CACHE_HOME="+filepath.Join(base, "xdg-cache"))
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{cmdR, cmdW, outR, outW} {
			f.Close()
		}
		return nil, fmt.Errorf("chromium: start %s: %w", o.Binary, err)
	}
	// The child has its own copies now.
	cmdR.Close()
	outW.Close()

	b := &Browser{
		Conn:    cdp.NewConn(cdp.NewPipeTransport(cmdW, outR)),
		PID:     cmd.Process.Pid,
		Profile: o.ProfileDir,
		cmd:     cmd,
		exited:  make(chan struct{}),
		tail:    tail,
	}
	go func() {
		_ = cmd.Wait()
		close(b.exited)
	}()
	_ = writePidFile(pidFile(o.ProfileDir), b.PID, o.ProfileDir)

	// The first reply proves the browser is up; an early exit closes the
	// pipe, which fails the call at once.
	if err := b.Conn.Browser().Call(ctx, "Browser.getVersion", nil, &b.Version); err != nil {
		_ = b.Kill()
		return nil, fmt.Errorf("chromium: did not start: %w%s", err, b.tail.suffix())
	}
	return b, nil
}

// Version is what Browser.getVersion says of the browser.
type Version struct {
	Product   string `json:"product"`
	UserAgent string `json:"userAgent"`
}

// Exited is closed once the browser process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Stop closes the browser gracefully (so the profile is flushed), then ends
// whatever is left of its process group. It returns when the main process
// has exited or ctx ends, whichever is first; the group is killed either way.
func (b *Browser) Stop(ctx context.Context) error {
	var err error
	b.stop.Do(func() {
		closeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_ = b.Conn.Browser().Call(closeCtx, "Browser.close", nil, nil)
		cancel()
		_ = b.Conn.Close()
		select {
		case <-b.exited:
		case <-time.After(3 * time.Second): // Chromium normally exits within ~1 s of Browser.close
		case <-ctx.Done():
		}
		err = b.killGroup()
		select {
		case <-b.exited:
		case <-ctx.Done():
			err = ctx.Err()
		}
		waitGroupGone(ctx, b.PID)
		_ = os.Remove(pidFile(b.Profile))
	})
	return err
}

// Kill ends the whole process group at once, without a graceful close.
func (b *Browser) Kill() error {
	var err error
	b.stop.Do(func() {
		err = b.killGroup()
		_ = b.Conn.Close()
		<-b.exited
		waitGroupGone(context.Background(), b.PID)
		_ = os.Remove(pidFile(b.Profile))
	})
	return err
}

func (b *Browser) killGroup() error {
	err := syscall.Kill(-b.PID, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "; browser said: " + strings.Join(lines, " | ")
}
