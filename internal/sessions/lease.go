package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/grid"
	"github.com/loupe-dev/loupe/internal/procid"
)

// A lease file records a WebDriver session that a loupe process took from
// a Grid, in the loupe session's directory, for as long as that process
// holds it: written as the Grid gives the browser, removed once the Grid
// has deleted the session. A process that dies without deleting its
// sessions (SIGKILL, a crash) leaves its lease files behind, and the next
// start gives those sessions back (ReleaseLeftovers) rather than leave
// their slots held until the Grid's own --session-timeout. One file per
// WebDriver session, named by its id: a lease whose delete failed stays
// on record beside the session's next one.
//
// The file holds the Grid's address as given, credentials and all (the
// next start must be let in to delete the session): it is its user's
// alone (0600), and the address is only ever said redacted.

// leaseRecord is what a lease file holds: the WebDriver session, and its
// owner (the loupe process that took it) as package chromium's pid files
// name one.
type leaseRecord struct {
	Grid       string `json:"grid"`
	Session    string `json:"session"`
	Owner      int    `json:"owner"`
	OwnerStart uint64 `json:"owner_start"`
	Boot       string `json:"boot,omitempty"`
}

func (r leaseRecord) owner() procid.ID {
	return procid.ID{PID: r.Owner, Start: r.OwnerStart, Boot: r.Boot}
}

// leaseGlob matches the lease files of a session directory.
const leaseGlob = "grid-*.lease"

// plainID is a WebDriver session id that can name a file as it is (a
// Grid's are 32 hex digits).
var plainID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)

// leasePath is the lease file of the WebDriver session id in dir. An id
// that could not name a file safely is named by its digest.
func leasePath(dir, id string) string {
	if !plainID.MatchString(id) {
		sum := sha256.Sum256([]byte(id))
		id = hex.EncodeToString(sum[:16])
	}
	return filepath.Join(dir, "grid-"+id+".lease")
}

// writeLease records that this process holds the WebDriver session id on
// the Grid at gridURL. It writes a temporary file and renames it, so a
// concurrent ReleaseLeftovers never reads half.
func writeLease(dir, gridURL, id string) error {
	me, err := procid.Self()
	if err != nil {
		return fmt.Errorf("naming this process as the lease's owner: %w", err)
	}
	b, err := json.Marshal(leaseRecord{Grid: gridURL, Session: id, Owner: me.PID, OwnerStart: me.Start, Boot: me.Boot})
	if err != nil {
		return err
	}
	path := leasePath(dir, id)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// removeLease removes the record of a WebDriver session the Grid has
// deleted. A file that cannot be removed is harmless: the next start asks
// the Grid, which no longer has the session, and removes it then.
func removeLease(dir, id string) { _ = os.Remove(leasePath(dir, id)) }

// errMalformed says a lease file does not record a WebDriver session:
// it never can be given back, and is removed.
var errMalformed = errors.New("not a lease file")

// readLease reads a lease file. An error in the chain of errMalformed
// says what it holds is no lease; any other, that it could not be read.
func readLease(path string) (leaseRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return leaseRecord{}, err
	}
	var r leaseRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return leaseRecord{}, fmt.Errorf("%w: %s: %w", errMalformed, path, err)
	}
	if r.Session == "" {
		return leaseRecord{}, fmt.Errorf("%w: %s: no WebDriver session", errMalformed, path)
	}
	if _, err := grid.ParseURL(r.Grid); err != nil {
		return leaseRecord{}, fmt.Errorf("%w: %s: no Grid address", errMalformed, path) // not err: it would show the address
	}
	return r, nil
}

// leftoverTimeout bounds the delete of one leftover WebDriver session.
// They are all deleted at once, so a Grid that does not answer holds a
// start back this long at most.
const leftoverTimeout = 5 * time.Second

// ReleaseLeftovers gives back to their Grids the WebDriver sessions that
// loupe processes recorded in the session directories under dirs (each a
// sessions directory) and did not delete because they died. A lease whose
// owner still runs is left alone: that process deletes it. A lease is
// forgotten (its file removed) once its Grid deleted the session or said
// it has no such session; a Grid that does not answer within
// leftoverTimeout, or refuses, keeps it on record for the next start,
// and is said in log (one line, the address redacted). A file that
// records no lease is removed, and said; one that cannot be read is
// kept, and said. It returns the ids of the WebDriver sessions it gave
// back.
//
// Known risk: a process killed after the Grid started a browser and
// before its lease file was written (the New Session reply in flight, or
// a request its caller left and the grid.Client was following through)
// leaves a session no file names; the Grid frees it after its own
// --session-timeout.
func ReleaseLeftovers(ctx context.Context, log *slog.Logger, dirs ...string) []string {
	var leftovers []leaseRecord
	var files []string
	for _, dir := range dirs {
		f, _ := filepath.Glob(filepath.Join(dir, "*", leaseGlob))
		for _, f := range f {
			r, err := readLease(f)
			switch {
			case errors.Is(err, errMalformed):
				log.Warn("removed a Grid lease file that records no WebDriver session", "file", f, "err", err)
				_ = os.Remove(f)
				continue
			case err != nil:
				log.Warn("cannot read a Grid lease file; kept", "file", f, "err", err)
				continue
			case !r.owner().Gone():
				continue
			}
			leftovers = append(leftovers, r)
			files = append(files, f)
		}
	}
	if len(leftovers) == 0 {
		return nil
	}
	clients := map[string]*grid.Client{}
	for _, r := range leftovers {
		if clients[r.Grid] == nil {
			if c, err := grid.New(r.Grid); err == nil { // readLease parsed it
				clients[r.Grid] = c
			}
		}
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var (
		mu       sync.Mutex
		released []string
		wg       sync.WaitGroup
	)
	for i, r := range leftovers {
		c := clients[r.Grid]
		if c == nil {
			continue
		}
		wg.Go(func() {
			dctx, cancel := context.WithTimeout(ctx, leftoverTimeout)
			defer cancel()
			if err := c.EndSession(dctx, r.Session); err != nil {
				log.Warn("a Selenium Grid did not end the WebDriver session of a loupe process that died; its lease is kept for the next start (the Grid frees the slot after its own --session-timeout)",
					"grid", c.URL(), "webdriver_session", r.Session, "owner", r.Owner, "err", err)
				return
			}
			_ = os.Remove(files[i])
			log.Info("ended the WebDriver session of a loupe process that died: its Grid slot is free", "grid", c.URL(), "webdriver_session", r.Session, "owner", r.Owner)
			mu.Lock()
			released = append(released, r.Session)
			mu.Unlock()
		})
	}
	wg.Wait()
	return released
}
