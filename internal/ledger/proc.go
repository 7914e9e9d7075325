package ledger

import (
	"errors"
	"os"

	"github.com/loupe-dev/loupe/internal/procid"
)

// proc is the process a generation records (see package procid): its
// pid, start time and boot. A zero start or an empty boot is not known
// (/proc could not tell), and the check falls back on what is.
//
// A process is only ever judged by a process of the same host identity
// (LocalHost): on a PostgreSQL ledger, another host's generations are not
// looked at. Known risk: a pid is only meaningful in its pid namespace.
// Processes in separate containers sharing one LOUPE_HOME, or one host
// identity on a shared ledger, would each take the other's generations
// for stopped ones (or a stranger's process for the owner).
type proc struct {
	pid   int
	start int64 // clock ticks after boot, as a database column holds it
	boot  string
}

// selfProc names this process. What /proc cannot tell stays unknown
// rather than failing Open: a ledger that cannot open stops every write.
func selfProc() proc {
	p := proc{pid: os.Getpid(), boot: procid.Boot()}
	if st, err := procid.ReadStat(p.pid); err == nil {
		p.start = int64(st.Start)
	}
	return p
}

// alive reports whether p still runs, as seen by me: another Open in
// this process does; otherwise procid judges, by the pid alone when the
// start was not known. When /proc cannot tell, p is taken as running:
// its reserved writes stay reserved rather than being settled under a
// process that may still settle them.
func (p proc) alive(me proc) bool {
	if p == me {
		return true
	}
	id := procid.ID{PID: p.pid, Start: uint64(p.start), Boot: p.boot}
	if p.pid <= 0 || p.start != 0 {
		return !id.Gone() // a pid below 1 is gone
	}
	if id.OtherBoot() {
		return false
	}
	st, err := procid.ReadStat(p.pid)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	return !st.Exited()
}
