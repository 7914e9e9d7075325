package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/homedir"
)

// lockWait bounds how long a starting daemon waits on a lock another
// process holds without serving (below the 15 s the CLI waits for ready).
const lockWait = 10 * time.Second

// lockPoll is how often the wait looks again: no event tells one process
// that another released a lock or began listening on a socket.
const lockPoll = 10 * time.Millisecond

// lockOrServed takes the home's daemon lock. A lock another process holds
// is not yet proof that a daemon serves: that daemon may still be starting,
// or ending — a killed process keeps its files, and so its lock, until its
// last thread has gone, after its main thread already shows as exited (a
// SIGKILLed daemon, measured: 23 times in 40). So it waits until either the
// socket answers (another daemon serves: homedir.ErrDaemonRunning) or the
// lock comes free (ours), for at most within; a holder that does neither is
// an error naming it.
func lockOrServed(ctx context.Context, home string, within time.Duration) (*os.File, error) {
	sock := homedir.SocketPath(home)
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	tick := time.NewTicker(lockPoll)
	defer tick.Stop()
	for {
		lock, err := homedir.LockDaemon(home)
		if !errors.Is(err, homedir.ErrDaemonRunning) {
			return lock, err // ours, or a lock file that cannot be opened
		}
		if serves(ctx, sock) {
			return nil, err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			holder := "another process"
			if b, rerr := os.ReadFile(homedir.LockPath(home)); rerr == nil && strings.TrimSpace(string(b)) != "" {
				holder = "process " + strings.TrimSpace(string(b))
			}
			return nil, fmt.Errorf("%s holds the daemon lock %s but does not answer on %s (waited %v); stop that process and start again",
				holder, homedir.LockPath(home), sock, within)
		}
	}
}

// serves reports whether something accepts connections on the socket.
func serves(ctx context.Context, sock string) bool {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
