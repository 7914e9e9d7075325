package world

import (
	"errors"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// TestMapErr: the protocol's ways of saying a document has gone (its
// context or frame unknown, its session detached) are ErrDocumentGone;
// other errors pass unchanged.
func TestMapErr(t *testing.T) {
	for _, msg := range []string{"Cannot find context with specified id", "No frame for given id found", "Frame with the given id was not found.", "Execution context was destroyed."} {
		if err := MapErr(&cdp.Error{Code: -32000, Message: msg}); !errors.Is(err, ErrDocumentGone) {
			t.Errorf("%q: %v", msg, err)
		}
	}
	if err := MapErr(fmt.Errorf("call: %w", cdp.ErrSessionGone)); !errors.Is(err, ErrDocumentGone) {
		t.Errorf("session gone: %v", err)
	}
	other := &cdp.Error{Code: -32602, Message: "Invalid parameters"}
	if err := MapErr(other); err != error(other) {
		t.Errorf("other: %v", err)
	}
}

// TestValue: a by-value remote object decodes; one without a value is an
// error, not a zero.
func TestValue(t *testing.T) {
	var n int64
	if err := Value(&runtime.RemoteObject{Value: []byte("42")}, &n); err != nil || n != 42 {
		t.Fatalf("%d, %v", n, err)
	}
	if err := Value(&runtime.RemoteObject{}, &n); err == nil {
		t.Fatal("no value decoded")
	}
	if err := Value(nil, &n); err == nil {
		t.Fatal("nil decoded")
	}
}
