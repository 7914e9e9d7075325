package engine

import "testing"

func TestSnapshotSmoke(t *testing.T) {
	for _, p := range []string{"basic.html", "dupes.html", "shadow.html", "compact.html"} {
		tab := openTab(t, p)
		s, err := tab.Snapshot(ctxT(t), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", p, s.Text)
	}
}
