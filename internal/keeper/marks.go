package keeper

import (
	"context"
	"sync"

	"github.com/loupe-dev/loupe/internal/ledger"
)

// Id marks in the ledger. The tabs file keeps each session's last surface
// and ref numbers, but it is one file: deleted or corrupted before a
// restart, the next daemon would start numbering at 1 and an old @e1
// would act on a new element. So the marks are kept in the ledger too,
// durably, after every operation that drew ids, before its reply (the same
// point the tabs file is written), and the next daemon skips past the
// higher of the two. When the ledger's marks are ahead of the file's, the
// file is behind (lost, or its last write missed) and the surface margin
// of an unclean stop is skipped as well. The cost is one small commit
// after an operation that drew new ids (a snapshot), none after one that
// did not.
type idMarks struct {
	mu   sync.Mutex
	kept map[string]ledger.IDMarks // what the ledger holds, as far as this keeper wrote or read it
}

// ledgerMarks reads the ledger's id marks (none without a ledger).
func (k *Keeper) ledgerMarks() map[string]ledger.IDMarks {
	k.marks.kept = map[string]ledger.IDMarks{}
	if k.cfg.Marks == nil {
		return nil
	}
	m, err := k.cfg.Marks.IDs(context.Background())
	if err != nil {
		k.cfg.Log.Error("reading the id marks from the ledger: numbering goes on from the tabs file alone", "err", err)
		return nil
	}
	for name, v := range m {
		k.marks.kept[name] = v
	}
	return m
}

// keepMarks writes to the ledger the marks of every session that drew ids
// since the last write. A failure is logged: the tabs file still has them.
func (k *Keeper) keepMarks() {
	if k.cfg.Marks == nil {
		return
	}
	k.marks.mu.Lock()
	defer k.marks.mu.Unlock()
	for _, s := range k.cfg.Sessions.All() {
		var now ledger.IDMarks
		now.Surfaces, now.Refs = s.IDs().Last()
		was := k.marks.kept[s.Name()]
		if now.Surfaces <= was.Surfaces && now.Refs <= was.Refs {
			continue
		}
		if err := k.cfg.Marks.KeepIDs(context.Background(), s.Name(), now); err != nil {
			k.cfg.Log.Error("keeping id marks in the ledger: the tabs file still has them", "session", s.Name(), "err", err)
			continue
		}
		k.marks.kept[s.Name()] = ledger.IDMarks{Surfaces: max(now.Surfaces, was.Surfaces), Refs: max(now.Refs, was.Refs)}
	}
}
