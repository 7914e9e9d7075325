package executor

import (
	"context"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/security"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
)

// The person's browser-control settings (package settings), as the
// executor applies them: controlEnabled gates every browser write (see
// controlStage), and ignoreCertificateErrors is set on each browser when
// an operation first uses it after the setting changed — in this process
// or another of the same home — so it applies to running browsers
// without a restart.

// certState is what a browser was last told about certificate errors.
type certState struct {
	mu      sync.Mutex
	applied bool
	ignore  bool
}

// applySettings brings a browser in line with the settings before an
// operation uses it. A failure to apply leaves it as it was and is
// reported: a page must not load on a setting the person did not choose.
func (x *Executor) applySettings(ctx context.Context, b *engine.Browser) error {
	v, err := x.settings.Get()
	if err != nil {
		return apitype.Wrap(apitype.Internal, err, "%v", err)
	}
	st := b.Kept("executor.certificates", func() any { return &certState{} }).(*certState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.applied && st.ignore == v.IgnoreCertificateErrors {
		return nil
	}
	if !st.applied && !v.IgnoreCertificateErrors {
		st.applied = true // a browser starts checking certificates
		return nil
	}
	if _, err := cdpproto.Call(ctx, b.BrowserSession(), security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: v.IgnoreCertificateErrors}); err != nil {
		return err
	}
	st.applied, st.ignore = true, v.IgnoreCertificateErrors
	return nil
}
