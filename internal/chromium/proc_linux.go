package chromium

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procAttr puts the browser in its own process group, so Stop can end its
// renderers and helpers with one signal, and asks the kernel to kill it if
// the launching process dies first.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procStartTime reads a process's start time (field 22 of /proc/PID/stat,
// in clock ticks since boot). With the pid it names one process for good:
// a reused pid has another start time.
func procStartTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after the last ')' are plain.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}
