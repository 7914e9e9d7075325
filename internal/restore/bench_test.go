package restore_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/viewport"
)

// BenchmarkFirstAccess is what a restored placeholder costs the first
// operation that works in it (timed: applying its viewport preference
// and loading its loopback page), beside opening the same page in a new
// tab as a fresh daemon would have to (timed: tab and load). Making the
// placeholder and closing the tabs are not timed.
//
//	go test -run '^$' -bench FirstAccess -benchtime 20x ./internal/restore/
func BenchmarkFirstAccess(b *testing.B) {
	br := enginetest.OwnBrowser(b)
	srv, _ := pages(b)
	url := srv.URL + "/page"
	for _, c := range []string{"placeholder", "new-tab-and-open"} {
		b.Run(c, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				b.StopTimer()
				var id string
				if c == "placeholder" {
					tabs, err := restore.Restore(ctx, br, []restore.Entry{{URL: url, Viewport: &viewport.Viewport{Width: 390, Height: 700}}})
					if err != nil {
						b.Fatal(err)
					}
					id = tabs[0].ID
				}
				b.StartTimer()
				t0 := time.Now()
				if c == "placeholder" {
					t, err := br.Surface(ctx, id)
					if err != nil {
						b.Fatal(err)
					}
					if err := restore.Load(ctx, br, t, true, nil); err != nil {
						b.Fatal(err)
					}
				} else {
					t, err := surface.NewTab(ctx, br)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := nav.Navigate(ctx, t, url); err != nil {
						b.Fatal(err)
					}
					id = t.ID
				}
				took = append(took, time.Since(t0))
				b.StopTimer()
				if err := surface.CloseTab(ctx, br, id); err != nil {
					b.Fatal(err)
				}
				cancel()
				b.StartTimer()
			}
			s := slices.Clone(took)
			slices.Sort(s)
			b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, "median-ms")
		})
	}
}

// BenchmarkFlush is what keeping the tabs file costs an operation: the
// state of three tabs encoded and compared, and written (by rename) when
// an id counter moved, as a snapshot moves it — or not, when nothing did.
//
//	go test -run '^$' -bench Flush ./internal/restore/
func BenchmarkFlush(b *testing.B) {
	for _, changed := range []bool{true, false} {
		name := "unchanged"
		if changed {
			name = "changed"
		}
		b.Run(name, func(b *testing.B) {
			st := sample()
			var refs int64
			r := restore.NewRecorder(filepath.Join(b.TempDir(), "tabs.json"), func() map[string]restore.Session {
				s := st["default"]
				s.Refs = refs
				st["default"] = s
				return st
			}, slog.New(slog.NewTextHandler(b.Output(), nil)))
			defer r.Stop()
			for b.Loop() {
				if changed {
					refs++
				}
				r.Flush()
			}
		})
	}
}
