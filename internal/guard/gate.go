package guard

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/grants"
)

// GrantGate is the Gate on the grant registry: a write acts only on tabs
// no other live task owns — the tab it acts in (unless the operation works
// on the session, as switching tabs does) and the tab it names.
type GrantGate struct{ Grants *grants.Registry }

func (g GrantGate) Check(_ context.Context, w Write) error {
	if w.Task == "" {
		return nil
	}
	if !w.SessionWide {
		if err := g.Grants.Check(w.Session, w.Task, w.Page, w.Opener); err != nil {
			return NoGrant(err)
		}
	}
	if err := g.Grants.Check(w.Session, w.Task, w.Target, w.TargetOpener); err != nil {
		return NoGrant(err)
	}
	return nil
}

// NoGrant is a grant refusal as the registry error.
func NoGrant(err error) error {
	var r *grants.Refusal
	if !errors.As(err, &r) {
		return err
	}
	e := apitype.Errorf(apitype.NoGrant, "%s; nothing was sent", r.Why)
	if r.Ended {
		return e.Fix("stop: a person ended this task; new work needs a task id of its own")
	}
	if r.Owner != "" {
		return e.Fix("work in a tab of your own ({1}); a person can end task "+r.Owner+" to free it", apitype.Step{Op: "tab new"})
	}
	return e.Fix("take a new snapshot ({1}) to work under a new grant: the old refs are gone", apitype.Step{Op: "snapshot"})
}
