package chromium

import (
	"context"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loupe-dev/loupe/internal/procid"
)

// procAttr puts the browser in its own process group, so Stop can end its
// renderers and helpers with one signal, and asks the kernel to kill it if
// the launching process dies first.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// GroupRunning reports whether any process of the process group still
// runs. Zombies do not count: they run no code, and whoever adopted them
// reaps them in its own time.
func GroupRunning(pgid int) bool { return len(groupPIDs(pgid)) > 0 }

// groupPIDs lists the running (not zombie) processes of a process group.
func groupPIDs(pgid int) []int {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []int{pgid} // cannot tell, and the group exists
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process
		}
		if st, err := procid.ReadStat(pid); err == nil && st.Group == pgid && !st.Exited() {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits (bounded, 2 s) until no process of the group runs.
// Its members were orphaned when the browser exited, so loupe cannot wait
// for them as children; it watches each one's pidfd, which becomes
// readable when the process exits, and looks again when one does.
func waitGroupGone(ctx context.Context, pgid int) {
	deadline := time.Now().Add(2 * time.Second)
	for ctx.Err() == nil {
		left := time.Until(deadline)
		pids := groupPIDs(pgid)
		if len(pids) == 0 || left <= 0 {
			return
		}
		var fds []unix.PollFd
		for _, pid := range pids {
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
			}
		}
		if len(fds) == 0 {
			continue // they exited between the listing and the open
		}
		_, _ = unix.Poll(fds, int(left.Milliseconds())+1)
		for _, f := range fds {
			unix.Close(int(f.Fd))
		}
	}
}
