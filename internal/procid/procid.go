// Package procid names a process for good: its pid, its start time and
// the boot it runs in. A pid alone does not, as the kernel reuses pids;
// with its start time (clock ticks after boot) it does within one boot,
// and the boot id tells boots apart (after a reboot every process of the
// last one is gone, and pids and start times begin again).
//
// loupe records the owner of what must not outlive it — a browser it
// launched (package chromium's pid files), a WebDriver session it took
// from a Selenium Grid (package sessions' lease files), the writes a
// ledger generation reserved (package ledger) — so that the next start
// can tell what a killed owner left behind from what a running one
// holds. It reads Linux's /proc, and imports nothing of loupe's.
//
// Known risk: a pid means something only in its pid namespace. Processes
// in separate containers sharing one LOUPE_HOME would take each other's
// owners for gone (or a stranger's process for an owner).
package procid

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// ID names one process.
type ID struct {
	PID int
	// Start is when it started, in clock ticks after boot (field 22 of
	// /proc/PID/stat).
	Start uint64
	// Boot is the boot it runs in ("": not known).
	Boot string
}

// Self names this process.
func Self() (ID, error) { return Of(os.Getpid()) }

// Of names the running process pid.
func Of(pid int) (ID, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return ID{}, err
	}
	return ID{PID: pid, Start: st.Start, Boot: Boot()}, nil
}

// Gone reports whether the process has ended: it ran in another boot, no
// process has its pid, the one that has started at another time (the
// pid was reused), or it has exited and waits for its parent (a zombie).
// A pid below 1 names no process: gone. When /proc cannot tell, the
// process is taken as running: what a live owner holds must never be
// taken for a leftover.
func (id ID) Gone() bool {
	if id.PID <= 0 || id.OtherBoot() {
		return true
	}
	st, err := ReadStat(id.PID)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return true
	case err != nil:
		return false
	}
	return st.Exited() || st.Start != id.Start
}

// OtherBoot reports whether the process ran in another boot than this
// one: then it is gone, and its pid and start time may be anyone's now.
// A boot not known (here or in id) is not another.
func (id ID) OtherBoot() bool {
	b := Boot()
	return id.Boot != "" && b != "" && id.Boot != b
}

// Boot names this boot of the machine ("" when /proc cannot tell).
func Boot() string { return boot() }

var boot = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// Stat is what /proc/PID/stat says of a process that loupe looks at.
type Stat struct {
	// State is R, S, D, …; Z (zombie) and X (dead) have exited.
	State string
	// Parent is its parent's pid.
	Parent int
	// Group is its process group.
	Group int
	// Start is when it started, in clock ticks after boot.
	Start uint64
}

// Exited reports whether the process has exited: it runs no code, only
// its parent has not reaped it yet.
func (s Stat) Exited() bool { return s.State == "Z" || s.State == "X" }

// ReadStat reads /proc/PID/stat. An error in the chain of os.ErrNotExist
// says no process has the pid. The command name (field 2) may hold
// spaces and parentheses, so fields are counted from its last closing
// parenthesis.
func ReadStat(pid int) (Stat, error) {
	name := "/proc/" + strconv.Itoa(pid) + "/stat"
	b, err := os.ReadFile(name)
	if err != nil {
		return Stat{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("malformed %s", name)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("malformed %s", name)
	}
	parent, err := strconv.Atoi(f[1])
	if err != nil {
		return Stat{}, fmt.Errorf("%s: parent: %w", name, err)
	}
	group, err := strconv.Atoi(f[2])
	if err != nil {
		return Stat{}, fmt.Errorf("%s: process group: %w", name, err)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return Stat{}, fmt.Errorf("%s: start time: %w", name, err)
	}
	return Stat{State: f[0], Parent: parent, Group: group, Start: start}, nil
}
