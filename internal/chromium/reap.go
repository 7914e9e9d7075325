package chromium

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Reap ends browsers that an earlier loupe process launched under dir (its
// sessions directory) and did not stop, for instance because it was killed.
// A pid file names the process by pid and start time, so a pid reused by an
// unrelated process is never signalled. It returns the pids it killed.
func Reap(dir string) []int {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "browser.pid"))
	var killed []int
	for _, f := range files {
		if pid, ok := stalePid(f); ok {
			if err := syscall.Kill(-pid, syscall.SIGKILL); err == nil || !errors.Is(err, syscall.ESRCH) {
				killed = append(killed, pid)
			}
		}
		_ = os.Remove(f)
	}
	return killed
}

func stalePid(file string) (int, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 1 {
		return 0, false
	}
	now, err := procStartTime(pid)
	switch {
	case err == nil:
		return pid, now == start
	case errors.Is(err, os.ErrNotExist):
		// The leader is gone but helpers may linger in its group. Linux
		// never hands out a pid that is still in use as a process group
		// id, so the group, if it exists, is still the browser's.
		return pid, true
	}
	return 0, false
}
