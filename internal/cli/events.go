package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
)

const eventsUsage = "usage: loupe events [--since SEQ] [--kind KIND[,KIND…]] [--count N]"

var eventsHelp = eventsUsage + `

Stream what happens, one JSON object a line (NDJSON), until interrupted:
tabs opened, closed and crashed; take-overs and resumes; approvals asked
and answered; writes settled (an unknown outcome has "unknown": true);
downloads; browsers gone; tasks ended. Every event has a sequence number
("seq"); a reader that falls behind gets a "dropped" event with the count.
With --session, only that session's events (and those of no session).

  --since SEQ    first replay the recent events after SEQ (0: all kept)
  --kind KINDS   only these kinds (` + kindList + `)
  --count N      exit after N events
`

var kinds = []string{events.TabOpened, events.TabChanged, events.TabClosed, events.TabCrashed, events.TabTakenOver, events.TabResumed,
	events.ApprovalAsked, events.ApprovalAnswered, events.OpSettled, events.DownloadStarted, events.DownloadProgress, events.DownloadDone, events.FileChooser,
	events.BrowserGone, events.TaskEnded, events.SettingsChanged, events.Dropped}

var kindList = strings.Join(kinds, ", ")

// eventsVerb streams the daemon's events to stdout.
func (c *cmd) eventsVerb(ctx context.Context, args []string) int {
	since, count := int64(-1), int64(0)
	var want []string
	for i := 0; i < len(args); i++ {
		name, val, has := strings.Cut(args[i], "=")
		switch name {
		case "--since", "--kind", "--count":
		default:
			return c.usage(fmt.Errorf("unexpected argument %q", args[i]), eventsUsage)
		}
		if !has {
			if i+1 >= len(args) {
				return c.usage(fmt.Errorf("%s needs a value", name), eventsUsage)
			}
			i++
			val = args[i]
		}
		switch name {
		case "--kind":
			for _, k := range strings.Split(val, ",") {
				if !slices.Contains(kinds, k) {
					return c.usage(fmt.Errorf("--kind %q: one of %s", k, kindList), eventsUsage)
				}
				want = append(want, k)
			}
		default:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 || name == "--count" && n == 0 {
				return c.usage(fmt.Errorf("%s %q: want a whole number", name, val), eventsUsage)
			}
			if name == "--since" {
				since = n
			} else {
				count = n
			}
		}
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cl, err := c.ensureDaemon(ctx)
	if err != nil {
		return c.fail(apitype.Wrap(apitype.DaemonUnavailable, err, "%v", err))
	}
	session := ""
	if c.sessionSet {
		session = c.session
	}
	var seen int64
	errEnough := errors.New("enough")
	err = cl.Events(ctx, session, since, func(line []byte) error {
		if len(want) > 0 {
			var e struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(line, &e) != nil || !slices.Contains(want, e.Kind) {
				return nil
			}
		}
		if _, err := fmt.Fprintf(c.stdout, "%s\n", line); err != nil {
			return err
		}
		if seen++; count > 0 && seen >= count {
			return errEnough
		}
		return nil
	})
	switch {
	case errors.Is(err, errEnough), errors.Is(err, context.Canceled):
		return 0
	case errors.Is(err, io.EOF):
		return c.fail(apitype.Errorf(apitype.DaemonUnavailable, "the daemon stopped; the event stream ended").
			Fix("start it again ({1}) and read on from the last seq you saw (--since SEQ)", apitype.Step{Op: "daemon start"}))
	}
	return c.fail(err)
}
