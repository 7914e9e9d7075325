package engine

import "context"

// Surface kinds. A kind is claimed only when the transport knows it.
const (
	KindTab             = "tab"              // a Chromium page target
	KindWindow          = "window"           // an Electron BrowserWindow's page
	KindWebContentsView = "webcontents_view" // an Electron WebContentsView
	KindWebview         = "webview"          // an Electron <webview> guest
	KindFrame           = "frame"            // an iframe, in or out of process
	KindOther           = "other"            // a renderer loupe cannot classify
)

// Classification is what the Electron main process says about one page
// target: its kind and, for a webview guest, its host's target id.
type Classification struct {
	Kind           string
	ParentTargetID string
}

// Classifier tells page targets' kinds from outside knowledge (an Electron
// main process's metadata), keyed by CDP target id.
type Classifier func(ctx context.Context) (map[string]Classification, error)

// SetClassifier classifies the page targets now and again whenever a page
// appears that the last answer did not name (Reclassify). Targets it does
// not name keep the transport's own kind (other, for Electron).
func (b *Browser) SetClassifier(ctx context.Context, c Classifier) error {
	m, err := c(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.classifier, b.classes = c, m
	return nil
}

// Classified reports whether a classifier is set (SetClassifier), for the
// capability matrix (package status).
func (b *Browser) Classified() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.classifier != nil
}

// Reclassify asks the classifier again when a page root is not classified,
// so that a listing names the kinds of pages that appeared since. A
// failure keeps the last answer: the unknown pages stay other.
func (b *Browser) Reclassify(ctx context.Context) {
	b.mu.Lock()
	c, stale := b.classifier, false
	for tid := range b.byTarget {
		if _, ok := b.classes[tid]; !ok {
			stale = true
		}
	}
	b.mu.Unlock()
	if c == nil || !stale {
		return
	}
	if m, err := c(ctx); err == nil {
		b.mu.Lock()
		b.classes = m
		b.mu.Unlock()
	}
}

// Electron reports whether the browser is an Electron app (by its user
// agent).
func (b *Browser) Electron() bool { return b.electron }

// Kind is the surface's kind and the surface it is under: a frame's
// parent frame or page ("" once its frame has gone), a webview guest's
// host. It makes no protocol call.
func (t *Surface) Kind() (kind, parent string) {
	if t.IsFrame() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if f := t.frames[t.root]; f != nil {
			parent = t.surfaceOf(f.parent)
		}
		return KindFrame, parent
	}
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.classes[t.TargetID]; ok && c.Kind != "" {
		if p := b.byTarget[c.ParentTargetID]; p != nil {
			parent = p.ID
		}
		return c.Kind, parent
	}
	if b.electron {
		// The endpoint alone does not say which pages are windows,
		// views or webviews.
		return KindOther, ""
	}
	return KindTab, ""
}
