package capture_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/snapshot"

	"github.com/loupe-dev/loupe/internal/testenv"
)

// mutations are what a page does between two snapshots; each is a script
// run in the page's own world, given a random number n (it may return a
// promise, awaited). The page is testpages' cache/page.html (with
// ?sibling, also with sibling and structural selectors).
var mutations = []string{
	`(n) => { const p = document.createElement('p'); p.textContent = 'new ' + n; document.getElementById('m').appendChild(p); }`,
	`(n) => { const b = document.createElement('button'); b.textContent = 'Made ' + n; document.getElementById('m').prepend(b); }`,
	`(n) => { const m = document.getElementById('m'); const k = m.children; if (k.length > 3) k[n % k.length].remove(); }`,
	`(n) => { const els = document.querySelectorAll('#m p, #m button, #sec p, #sec li, td'); if (els.length) els[n % els.length].textContent = 'changed ' + n; }`,
	`(n) => { const els = document.querySelectorAll('#m > *, #sec *, #tb tr, td, label, #lbl'); if (els.length) els[n % els.length].classList.toggle('hide'); }`,
	`(n) => { const els = document.querySelectorAll('#m > *, #sec *, #tb tr, #host'); if (els.length) els[n % els.length].classList.toggle('faint'); }`,
	`(n) => { const els = document.querySelectorAll('#sec div, #sec p, #m p, #sec ul'); if (els.length) els[n % els.length].classList.toggle('inl'); }`,
	`(n) => { const els = document.querySelectorAll('#sec div, #m > *, #sec li'); if (els.length) els[n % els.length].classList.toggle('x'); }`,
	`(n) => { const els = document.querySelectorAll('#sec div, #sec span, td, #m p'); if (els.length) els[n % els.length].classList.toggle('pt'); }`,
	`(n) => { const els = document.querySelectorAll('#m button'); if (els.length) els[n % els.length].style.display = n % 2 ? 'none' : ''; }`,
	`(n) => { document.getElementById('i0').value = 'typed ' + n; }`,
	`(n) => { document.getElementById('c0').checked = !!(n % 2); }`,
	`(n) => { document.getElementById('s0').selectedIndex = n % 2; }`,
	`(n) => { document.getElementById('d0').open = !!(n % 2); }`,
	`(n) => { const els = document.querySelectorAll('button, input, a'); if (els.length) els[n % els.length].focus(); }`,
	`(n) => { window.scrollTo(0, (n % 5) * 300); }`,
	`(n) => { document.title = 'Title ' + n; }`,
	`(n) => { history.replaceState(null, '', '#step' + n); }`,
	`(n) => { const r = document.getElementById('host').shadowRoot; const b = document.createElement('button'); b.textContent = 'Shadow ' + n; r.prepend(b); }`,
	`(n) => { const r = document.getElementById('host').shadowRoot; const k = r.children; if (k.length > 2) k[n % k.length].remove(); }`,
	`(n) => { const s = document.querySelector('#host span'); if (n % 2) s.textContent = 'slotted ' + n; else s.slot = s.slot === 's' ? 'none' : 's'; }`,
	`(n) => { document.getElementById('b0').setAttribute('aria-label', 'Labelled ' + n); }`,
	`(n) => { document.getElementById('b0').disabled = !!(n % 2); }`,
	`(n) => { const tr = document.createElement('tr'); tr.innerHTML = n % 2 ? '<td>row ' + n + '</td><td>' + n + '</td>' : '<td>row ' + n + '</td><td><button>Buy ' + n + '</button></td>'; const tb = document.getElementById('tb'); tb.insertBefore(tr, tb.children[n % (tb.children.length + 1)] || null); }`,
	`(n) => { const rows = document.querySelectorAll('#tb tr'); if (rows.length > 1) rows[n % rows.length].remove(); }`,
	`(n) => { const cells = document.querySelectorAll('#tb td'); if (cells.length) cells[n % cells.length].innerHTML = n % 3 ? 'cell ' + n : '<a href="#c">cell ' + n + '</a>'; }`,
	`(n) => { const l = document.querySelector('label[for=far]'); if (l) l.textContent = 'Far label ' + n; }`,
	`(n) => { document.getElementById('lbl').textContent = 'Labelled by ' + n; }`,
	`(n) => { const d = document.getElementById('deep'); const to = document.querySelectorAll('#sec li, #m, #sec div'); if (d && to.length) to[n % to.length].appendChild(d); }`,
	`(n) => { const b = document.querySelector('#p0 b'); if (b) b.textContent = 'bold ' + n; }`,
	`(n) => { const d = document.querySelector('#sec div div'); if (d) d.insertAdjacentHTML('beforeend', '<span>more ' + n + '</span>'); }`,
	`(n) => new Promise((done) => { const f = document.getElementById(n % 2 ? 'xf' : 'sf'); const h = (e) => { if (e.source === f.contentWindow) { removeEventListener('message', h); done(); } }; addEventListener('message', h); f.contentWindow.postMessage({ op: ['text', 'add', 'remove', 'hide'][(n >> 1) % 4], n }, '*'); })`,
	`(n) => new Promise((done) => { const f = document.getElementById(n % 2 ? 'xf' : 'sf'); f.addEventListener('load', () => done(), { once: true }); f.src = f.src.split('?')[0] + '?v=' + n; })`,
	`(n) => { const els = document.querySelectorAll('#m, #sec, #sec > div, #sec ul, #tb, #host, body > div'); els[n % els.length].classList.toggle(['faint', 'pt', 'hide'][(n >> 3) % 3]); }`,
	`(n) => { const from = document.querySelectorAll('#sec div, #sec li, #m p, #m button, #tb tr'); const to = document.querySelectorAll('#m, #sec, #sec ul, #tb, .faint, .pt, li'); if (from.length && to.length) { const a = from[n % from.length], b = to[(n >> 2) % to.length]; if (!a.contains(b)) b.appendChild(a); } }`,
	`(n) => { const l = document.createElement('label'); l.htmlFor = 'late-in'; l.textContent = 'Late label ' + n; document.querySelectorAll('#m, #sec, body')[n % 3].appendChild(l); }`,
	`(n) => { const old = document.getElementById('late'); if (old && n % 2) { old.remove(); return; } const s = document.createElement('span'); s.id = 'late'; s.textContent = 'Late name ' + n; document.querySelectorAll('#m, #sec')[n % 2].appendChild(s); }`,
	`(n) => {}`,
	// The pointer moves over an element (trusted input: :hover).
	"move:#hov, #hov .tip, button, a, p, td, h1, input",
	"move:#hov",
	"move:body",
	`(n) => { if (n % 2) document.getElementById('fin').focus(); else document.activeElement.blur(); }`,
	`(n) => { document.getElementById('c0').checked = !document.getElementById('c0').checked; }`,
}

// TestCachedSnapshotEqualsFresh drives random sequences of DOM, style,
// value, focus, scroll, title, address, shadow-root and frame changes (and
// frame loads) on a page and, after each, compares the snapshot made from
// the agents' kept walks with a fresh walk of every document: the text and
// the ref table must be identical. A fresh walk leaves the kept one as it
// was, so the kept walks go through the whole sequence.
func TestCachedSnapshotEqualsFresh(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, "")
	eval := func(ctx context.Context, expr string) {
		t.Helper()
		if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Two runs cut their snapshots at 50 chars: the walks stop at a
	// budget, kept and fresh alike. The sequences are seeded, so every
	// run of the test replays the same ones; by default (make test, go test) it runs two
	// of them for 20 steps, make test-long all five for 60.
	runs := []struct {
		page string
		seed uint64
		max  int
	}{{"cache/page.html", 1, 0}, {"cache/page.html?sibling", 5, 50}, {"cache/page.html", 2, 50}, {"cache/page.html", 3, 0}, {"cache/page.html?sibling", 4, 0}}
	steps := 60
	if !testenv.Long() {
		runs, steps = runs[:2], 20
	}
	for _, run := range runs {
		gotoPage(t, tab, a.Page(run.page))
		framesLoaded(ctxT(t), t, tab)
		rng := rand.New(rand.NewPCG(run.seed, 7))
		cuts := 0
		for step := range steps {
			ctx := ctxT(t) // a deadline per step
			i, n := rng.IntN(len(mutations)), rng.IntN(1000)
			if sel, ok := strings.CutPrefix(mutations[i], "move:"); ok {
				movePointer(ctx, t, tab, sel, n)
			} else {
				eval(ctx, fmt.Sprintf("(%s)(%d)", mutations[i], n))
			}
			// Let the page finish what it does on its own after the change
			// (the browser moves focus off a disabled element, fires scroll
			// events, at its next frame): two snapshots taken across that
			// would differ with or without a cache.
			eval(ctx, "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
			if loadsFrame(mutations[i]) {
				framesLoaded(ctx, t, tab)
			}
			cached, err := capture.Take(ctx, tab, capture.SnapshotOptions{MaxChars: run.max})
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := capture.Take(ctx, tab, capture.SnapshotOptions{NoCache: true, MaxChars: run.max})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(fresh.Text, "of more than") {
				cuts++
			}
			if cached.Text != fresh.Text || !reflect.DeepEqual(cached.Refs, fresh.Refs) {
				t.Fatalf("%s seed %d step %d (mutation %d, n %d): the snapshot differs from a fresh walk\ncached:\n%s\nfresh:\n%s\nrefs: %v\nfresh refs: %v",
					run.page, run.seed, step, i, n, cached.Text, fresh.Text, cached.Refs, fresh.Refs)
			}
		}
		if run.max > 0 && cuts == 0 {
			t.Fatalf("%s seed %d: no walk stopped at its budget", run.page, run.seed)
		}
	}
}

// loadsFrame reports a mutation that loads a new document into a frame;
// no other one replaces a document.
func loadsFrame(m string) bool { return strings.Contains(m, ".src = ") }

// framesLoaded waits until a fresh snapshot shows both frames' content: a
// frame that has just loaded a new document is read once loupe has seen
// its new context (which a cross-site frame reports in its own session,
// in no order with the page's load event). Bounded: a 30 s poll (a frame
// loads in well under a second alone; a loaded machine takes longer).
func framesLoaded(ctx context.Context, t *testing.T, tab *engine.Surface) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := capture.Take(ctx, tab, capture.SnapshotOptions{NoCache: true})
		if err == nil && strings.Count(s.Text, `heading "Frame"`) == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the frames did not both show their content within 30 s: %v\n%v", err, s)
		}
		time.Sleep(20 * time.Millisecond) // a bounded poll of the engine's view of the frames
	}
}

// TestKeptLocatorsFollowStructure: a frame's locator facts are kept while
// only its text changes, and asked for again when its elements or
// attributes change.
func TestKeptLocatorsFollowStructure(t *testing.T) {
	t.Parallel()
	tab := enginetest.OpenTab(t, "cache/locs.html")
	ctx := enginetest.Ctx(t)
	locOf := func() string {
		t.Helper()
		s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := ""
		for _, r := range s.Refs {
			if r.Role == "button" && ref == "" {
				ref = r.Ref // the first button's
			}
		}
		b, ok := tab.Refs().Lookup(ref)
		if !ok {
			t.Fatalf("ref %s not bound", ref)
		}
		return b.Locator
	}
	eval := func(expr string) {
		t.Helper()
		if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if l := locOf(); l != "#b" {
		t.Fatalf("first locator %q, want #b (the name is not unique)", l)
	}
	eval(`document.getElementById('t').textContent = 'text 1'`)
	if l := locOf(); l != "#b" {
		t.Fatalf("after a text change: %q", l)
	}
	eval(`document.getElementById('b').setAttribute('data-testid', 'go')`)
	if l := locOf(); l != "testid=go" {
		t.Fatalf("after the button got a test id: %q, want testid=go", l)
	}
	eval(`const b = document.getElementById('b'); b.removeAttribute('data-testid'); b.removeAttribute('id'); b.nextElementSibling.remove()`)
	if l := locOf(); l != `role=button[name="Go"]` {
		t.Fatalf("after the other button went: %q, want the role locator", l)
	}
}

// TestTextChangeKeepsStructure: a text node replaced or added (as
// textContent does) leaves the document's elements as they were, so the
// walk's structure number (Page.Struct, on which the kept locator facts
// hang) stays; an element added moves it to the new walk.
func TestTextChangeKeepsStructure(t *testing.T) {
	t.Parallel()
	tab := enginetest.OpenTab(t, "cache/locs.html")
	ctx := enginetest.Ctx(t)
	w, err := tab.World(ctx, tab.Root())
	if err != nil {
		t.Fatal(err)
	}
	walk := func(have int64) *snapshot.Page {
		t.Helper()
		opts := map[string]any{}
		if have != 0 {
			opts["have"] = have
		}
		var raw string
		if err := w.Call(ctx, "snapshot", &raw, opts); err != nil {
			t.Fatal(err)
		}
		p, err := snapshot.DecodePage(raw)
		if err != nil {
			t.Fatal(err)
		}
		if p.Seq == 0 || p.Same {
			t.Fatalf("the walk is not a kept one that changed: %+v", p)
		}
		return p
	}
	eval := func(expr string) {
		t.Helper()
		if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr}, nil); err != nil {
			t.Fatal(err)
		}
	}
	first := walk(0)
	eval(`document.getElementById('t').textContent = 'text 1'; document.getElementById('t').append(' more')`)
	text := walk(first.Seq)
	if text.Struct != first.Struct {
		t.Fatalf("after text changes only, struct %d, want %d (walk %d)", text.Struct, first.Struct, text.Seq)
	}
	eval(`document.getElementById('t').append(document.createElement('b'))`)
	if el := walk(text.Seq); el.Struct != el.Seq {
		t.Fatalf("after an element was added, struct %d, want this walk's %d", el.Struct, el.Seq)
	}
}

// TestKeptWalkMemory: the walk the page agent keeps of the large page
// (its tree and memo) costs the page's heap at most about what a fresh
// walk leaves (its element ids): its nodes stay plain objects. A node
// that lost a property to delete became a hash table several times its
// size, and the kept walk cost 2.2 times the fresh one's 1.5 MB.
// In make test-long only (LOUPE_TEST_LONG=1): two walks of the large page.
func TestKeptWalkMemory(t *testing.T) {
	if !testenv.Long() {
		t.Skip("two walks of the large page: make test-long")
	}
	t.Parallel()
	tab := bigTab(t, "large.html")
	h0, h1, h2 := walkHeaps(t, enginetest.LongCtx(t), tab)
	t.Logf("a fresh walk left %.2f MB, the kept walk %.2f MB more", h1-h0, h2-h1)
	if h2-h1 > 1.5*(h1-h0) {
		t.Fatalf("the kept walk costs %.2f MB, %.1f times a fresh walk's %.2f MB", h2-h1, (h2-h1)/(h1-h0), h1-h0)
	}
}

// walkHeaps measures the JS heap of tab's renderer (Runtime.getHeapUsage
// after a garbage collection) in MB: with the page agent installed (h0),
// after a fresh walk (h1: what the agent keeps without a cache, element
// ids) and after a kept walk (h2: its memo and tree too).
func walkHeaps(tb testing.TB, ctx context.Context, tab *engine.Surface) (h0, h1, h2 float64) {
	tb.Helper()
	heap := func() float64 {
		if err := tab.Session().Call(ctx, "HeapProfiler.collectGarbage", nil, nil); err != nil {
			tb.Fatal(err)
		}
		var u struct {
			UsedSize float64 `json:"usedSize"`
		}
		if err := tab.Session().Call(ctx, "Runtime.getHeapUsage", nil, &u); err != nil {
			tb.Fatal(err)
		}
		return u.UsedSize / (1 << 20)
	}
	// The agent itself, installed by its world's first call.
	w, err := tab.World(ctx, tab.Root())
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Eval(ctx, "0", nil); err != nil {
		tb.Fatal(err)
	}
	h0 = heap()
	if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{NoCache: true}); err != nil {
		tb.Fatal(err)
	}
	h1 = heap()
	if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
		tb.Fatal(err)
	}
	return h0, h1, heap()
}

// movePointer moves the mouse, as trusted input, to the middle of the n-th
// (modulo) element the selector finds that has a box in the viewport.
func movePointer(ctx context.Context, t *testing.T, tab *engine.Surface, sel string, n int) {
	t.Helper()
	var res struct {
		Result struct {
			Value []float64 `json:"value"`
		} `json:"result"`
	}
	expr := fmt.Sprintf(`(() => { const els = [...document.querySelectorAll(%q)].filter((e) => { const r = e.getBoundingClientRect();
		return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight; });
		if (!els.length) return [1, 1]; const r = els[%d %% els.length].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel, n)
	if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Result.Value) != 2 {
		t.Fatalf("no point to move to: %v", res.Result.Value)
	}
	if err := tab.Session().Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": res.Result.Value[0], "y": res.Result.Value[1]}, nil); err != nil {
		t.Fatal(err)
	}
}
