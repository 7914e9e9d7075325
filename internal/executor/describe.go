package executor

import (
	"context"
	"encoding/json"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
)

// describeStage describes a write to the stages after it (guard.Write): its
// operation id (a new one, or the caller's, checked), its caller and
// task, the tab it acts on and the tab that opened it, the tab its input
// names, its origin, the element it names with that element's stable
// locator, and whether it types into a password field. It looks at a
// running browser and never starts one.
type describeStage struct {
	// waiting are the writes held for approval: an answer to one (approve,
	// deny) is recorded on the surface of the write it answers.
	waiting *approvals.Queue
}

func (describeStage) name() string { return "describe" }

func (s describeStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() {
		return nil, nil
	}
	id := c.req.OperationID
	if id == "" {
		id = apitype.NewOperationID()
	} else if !apitype.ValidOperationID(id) {
		return nil, apitype.Errorf(apitype.BadInput, "operation id %q: use 1 to 64 letters, digits, '.', '_', ':' or '-'", id)
	}
	doc := c.write.Document
	c.write = baseWrite(c, id)
	c.write.Epoch, c.write.Document, c.write.SessionWide = c.epoch, doc, c.op.SessionWide
	if o, ok := c.in.(ops.TabOpener); ok && o.OpensTab() {
		c.write.SessionWide = true // it acts in the tab it opens
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	where(ctx, c)
	if in, ok := c.in.(*ops.ApprovalIDIn); ok && s.waiting != nil {
		for _, a := range s.waiting.List() {
			if a.ID == in.ID {
				c.write.Surface = a.SurfaceID
			}
		}
	}
	element, text := inputFields(c.in)
	c.write.Element = element
	t, _ := c.page(ctx)
	if element != "" && t != nil {
		c.write.Locator = element // a locator names itself
		if ref := refOrLocator(element); ref != "" {
			c.write.ElementLine, c.write.Locator = t.Element(ctx, ref)
		}
		c.write.Secret = text != "" && t.Secret(ctx, element)
	}
	return nil, nil
}

// where fills in the tab a write acts on, the tab that opened it, the tab
// its input names and its page's origin (the address it opens, for a
// navigation).
func where(ctx context.Context, c *call) {
	w := &c.write
	w.Origin = originOf(navTarget(c.in))
	if t, err := c.page(ctx); err == nil && t != nil {
		w.Page, w.Opener = t.PageID(), t.Opener()
		_, w.Epoch = c.sess.Mode(w.Page)
		c.epoch = w.Epoch
		if w.Origin == "" {
			w.Origin = originOf(t.URL())
		}
	}
	if in, ok := c.in.(ops.Targeter); ok {
		if in.Target() == "" {
			w.Target, w.TargetOpener = w.Page, w.Opener // the caller's own
		} else if t, err := c.pageByID(ctx, in.Target()); err == nil && t != nil {
			w.Target, w.TargetOpener = t.PageID(), t.Opener()
		}
	}
	// The ledger names the surface the write acts on: the tab its input
	// names (takeover s9, tab close s4); none for a command on no tab
	// (policy set); a tab it opens is named once it ran (settle).
	switch {
	case w.Target != "":
		w.Surface = w.Target
	case c.op.NoBrowser:
		w.Surface = ""
	}
}

// inputFields are what the stages read of a write's input, by the wire
// names every operation uses: the element it names ("ref", a ref or a
// locator) and the text it types ("text"). The input is read once.
func inputFields(in any) (element, text string) {
	b, err := json.Marshal(in)
	if err != nil {
		return "", ""
	}
	var f struct {
		Ref  string `json:"ref"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(b, &f)
	return f.Ref, f.Text
}

// baseWrite is what is known of a write from its request alone: its id,
// operation, session, caller (and task, under a grant or a person's own),
// the caller's current surface, its input and digest. describe adds where
// it acts; refusals records a write refused before it was described.
func baseWrite(c *call, id string) guard.Write {
	w := guard.Write{ID: id, Op: c.op.Name, Action: c.op.Action, Session: c.sess.Name(), Client: clientName(c),
		Surface: c.client.Current(), Input: c.in, Digest: ledger.Digest(c.op.Name, c.in), Person: c.req.Person}
	if c.grant != "" || c.req.Person {
		w.Task = c.task
	}
	return w
}

// clientName names the caller for a person reading approvals and the
// ledger: its client id (an MCP server's), "person" for a person's own
// writes at the dashboard, "cli" for the command line, whose requests
// carry none.
func clientName(c *call) string {
	switch {
	case c.req.Client != "":
		return c.req.Client
	case c.req.Person:
		return "person"
	}
	return "cli"
}
