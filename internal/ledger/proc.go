package ledger

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// proc names one process for good: a pid alone does not, as the kernel
// reuses pids, but a pid with its start time does, within one boot; the
// boot id tells boots apart (after a reboot every process of the last one
// is gone, and pids and start times begin again). A zero start or an
// empty boot is not known, and the check falls back on what is.
//
// A process is only ever judged by a process of the same host identity
// (LocalHost): on a PostgreSQL ledger, another host's generations are not
// looked at. Known risk: a pid is only meaningful in its pid namespace.
// Processes in separate containers sharing one LOUPE_HOME, or one host
// identity on a shared ledger, would each take the other's generations
// for stopped ones (or a stranger's process for the owner).
type proc struct {
	pid   int
	start int64  // clock ticks after boot: /proc/PID/stat field 22
	boot  string // /proc/sys/kernel/random/boot_id
}

// selfProc names this process. What /proc cannot tell stays unknown
// rather than failing Open: a ledger that cannot open stops every write.
func selfProc() proc {
	p := proc{pid: os.Getpid()}
	if st, err := readStat(p.pid); err == nil {
		p.start = st.start
	}
	p.boot = bootID()
	return p
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// alive reports whether p still runs, as seen by me. A zombie does not
// count: it has exited and runs no code, only its parent has not reaped
// it yet.
func (p proc) alive(me proc) bool {
	if p == me {
		return true // another Open in this process
	}
	if p.pid <= 0 {
		return false // never a real process; and kill(0) would ask about our own group
	}
	if p.boot != "" && me.boot != "" && p.boot != me.boot {
		return false
	}
	st, err := readStat(p.pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false
	case err != nil:
		// /proc cannot tell (not mounted, or hidden): the kernel can tell
		// whether the pid exists, not whose it is.
		return !errors.Is(syscall.Kill(p.pid, 0), syscall.ESRCH)
	case st.state == "Z" || st.state == "X":
		return false
	}
	return p.start == 0 || st.start == p.start
}

type stat struct {
	state string
	start int64
}

// readStat reads a process's state and start time from /proc/PID/stat.
// The command name (field 2) may hold spaces and parentheses, so fields
// are counted from its closing parenthesis: the state is field 3 and the
// start time field 22.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, errors.New("malformed /proc/" + strconv.Itoa(pid) + "/stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return stat{}, errors.New("malformed /proc/" + strconv.Itoa(pid) + "/stat")
	}
	start, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return stat{}, err
	}
	return stat{state: f[0], start: start}, nil
}
