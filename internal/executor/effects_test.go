package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// TestEffectsStage: on success, a tab a write opened is its task's and
// loupe's own, a snapshot is the caller's last of its surface (a grep
// read remembered whole), and a change of the settings is published; a
// failure does none of it.
func TestEffectsStage(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent", Grants: grants.New("g", 0, nil)})
	sub := x.events.Subscribe(8, -1)
	defer sub.Close()

	open := describe[ops.OpenIn]("open", ops.Write)
	c := fakeCall(t, open, &ops.OpenIn{URL: "https://a.test/", NewTab: true}, &fakePage{id: "s4"})
	if _, err := x.grants.Use("default", "cli", "", false); err != nil {
		t.Fatal(err)
	}
	c.write.Task = "cli"
	leave, _ := enter(t, effectsStage{x}, c)
	leave(&outcome{out: &ops.NavOut{}})
	if x.grants.Owner("default", "s4") != "cli" || !c.sess.Own("s4") {
		t.Fatalf("the tab it opened: owner %q, loupe's %v", x.grants.Owner("default", "s4"), c.sess.Own("s4"))
	}

	snap := describe[ops.SnapshotIn]("snapshot", ops.Read)
	snap.Snapshot = true
	c = fakeCall(t, snap, &ops.SnapshotIn{Grep: "Buy"}, nil)
	leave, _ = enter(t, effectsStage{x}, c)
	leave(&outcome{out: &ops.SnapshotOut{Snapshot: wire.Snapshot{SurfaceID: "s1", Text: "surface s1:\n- button \"Buy\"", Full: "surface s1:\n- heading \"Shop\"\n- button \"Buy\""}}})
	if last, ok := c.client.Last("s1"); !ok || last.Text != "surface s1:\n- heading \"Shop\"\n- button \"Buy\"" {
		t.Fatalf("remembered %q, %v", last.Text, ok)
	}

	set := describe[nothing]("settings set", ops.Write, noBrowser, as(ops.ActControl))
	set.Settings = true
	c = fakeCall(t, set, nil, nil)
	leave, _ = enter(t, effectsStage{x}, c)
	leave(&outcome{err: &apitype.Error{Code: apitype.BadInput}})
	leave(&outcome{out: &nothing{}})
	<-sub.Ready()
	if evs := sub.Next(); len(evs) != 1 || evs[0].Kind != events.SettingsChanged || evs[0].Op != "settings set" {
		t.Fatalf("events %+v", evs)
	}
}
