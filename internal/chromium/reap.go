package chromium

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/loupe-dev/loupe/internal/procid"
)

// pidRecord is what a browser's pid file holds: the browser and its owner
// (the loupe process that launched it), each named by pid and start time,
// which with the boot names a process for good (a reused pid has another
// start time). The owner is what tells a leftover from a live browser:
// only an owner that died without stopping its browser leaves one behind,
// and one that still runs (the daemon, or an in-process MCP server sharing
// its LOUPE_HOME) stops its own.
type pidRecord struct {
	PID        int    `json:"pid"`
	Start      uint64 `json:"start"`
	Owner      int    `json:"owner"` // 0: not recorded (a pid file of an older loupe)
	OwnerStart uint64 `json:"owner_start"`
	Boot       string `json:"boot,omitempty"`
	Profile    string `json:"profile"`
}

// writePidFile records a browser this process launched. It writes a
// temporary file and renames it, so a concurrent Reap never reads half.
func writePidFile(path string, pid int, profile string) error {
	browser, err := procid.Of(pid)
	if err != nil {
		return err
	}
	owner, err := procid.Self()
	if err != nil {
		return err
	}
	b, err := json.Marshal(pidRecord{PID: pid, Start: browser.Start, Owner: owner.PID, OwnerStart: owner.Start, Boot: owner.Boot, Profile: profile})
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readPidFile reads a pid file: a JSON record, or the older "PID START
// PROFILE" line, which names no owner.
func readPidFile(path string) (pidRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return pidRecord{}, err
	}
	var r pidRecord
	if len(b) > 0 && b[0] == '{' {
		if err := json.Unmarshal(b, &r); err != nil {
			return pidRecord{}, fmt.Errorf("chromium: %s: %w", path, err)
		}
		return r, nil
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return pidRecord{}, fmt.Errorf("chromium: %s: malformed", path)
	}
	r.PID, err = strconv.Atoi(f[0])
	if err != nil {
		return pidRecord{}, fmt.Errorf("chromium: %s: %w", path, err)
	}
	if r.Start, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return pidRecord{}, fmt.Errorf("chromium: %s: %w", path, err)
	}
	return r, nil
}

// Reap ends browsers that a loupe process launched under dir (a sessions
// directory) and did not stop because it died, for instance killed. A
// browser whose owner still runs is left alone, pid file and all. It
// returns the pids of the process groups it killed.
func Reap(dir string) []int {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "browser.pid"))
	var killed []int
	for _, f := range files {
		r, err := readPidFile(f)
		if err == nil {
			left, kill := r.leftover()
			if !left {
				continue
			}
			if kill {
				if err := syscall.Kill(-r.PID, syscall.SIGKILL); err == nil || !errors.Is(err, syscall.ESRCH) {
					killed = append(killed, r.PID)
				}
			}
		}
		_ = os.Remove(f)
	}
	return killed
}

// owner is the process that launched the browser (PID 0: not recorded,
// in a pid file of an older loupe).
func (r pidRecord) owner() procid.ID {
	return procid.ID{PID: r.Owner, Start: r.OwnerStart, Boot: r.Boot}
}

// leftover reports whether the record's browser was left behind by an
// owner that is gone, and whether its process group may still hold
// processes to end.
func (r pidRecord) leftover() (left, kill bool) {
	if r.PID <= 1 {
		return true, false // never a browser; and kill(-1) would signal everything
	}
	if r.owner().OtherBoot() {
		// Every process of an earlier boot is gone, and its pids may be
		// anyone's now.
		return true, false
	}
	if !r.owner().Gone() {
		return false, false
	}
	// The owner is gone (or, in an older pid file, unknown: taken as gone,
	// as loupe always did).
	st, err := procid.ReadStat(r.PID)
	switch {
	case err == nil:
		return true, st.Start == r.Start
	case errors.Is(err, os.ErrNotExist):
		// The leader is gone but helpers may linger in its group. Linux
		// never hands out a pid that is still in use as a process group
		// id, so the group, if it exists, is still the browser's.
		return true, true
	}
	return true, false
}
