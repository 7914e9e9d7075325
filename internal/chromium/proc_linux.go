package chromium

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procAttr puts the browser in its own process group, so Stop can end its
// renderers and helpers with one signal, and asks the kernel to kill it if
// the launching process dies first.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procStat reads the fields of /proc/PID/stat after the command name,
// which may hold spaces and parentheses: f[0] is the state, f[2] the
// process group, f[19] the start time.
func procStat(pid string) ([]string, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed /proc/%s/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return nil, fmt.Errorf("malformed /proc/%s/stat", pid)
	}
	return f, nil
}

// procStartTime reads a process's start time (in clock ticks since boot).
// With the pid it names one process for good: a reused pid has another
// start time.
func procStartTime(pid int) (uint64, error) {
	f, err := procStat(strconv.Itoa(pid))
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// bootID names this boot of the machine ("" when /proc cannot tell): after
// a reboot every process of the last one is gone, and pids and start
// times begin again.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
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
	want := strconv.Itoa(pgid)
	var out []int
	for _, e := range ents {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		f, err := procStat(e.Name())
		if err == nil && f[2] == want && f[0] != "Z" && f[0] != "X" {
			if pid, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, pid)
			}
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
