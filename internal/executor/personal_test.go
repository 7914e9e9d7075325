package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestPersonalStage: in a person's own browser, an agent's read or write
// in one of their tabs waits for their approval; tabs loupe opened there
// (and their popups), operations on the session and other browsers
// pass.
func TestPersonalStage(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	read := describe[nothing]("snapshot", ops.Read)
	c := fakeCall(t, read, nil, &fakePage{id: "s1"})
	if _, err := enter(t, personalStage{x}, c); err != nil {
		t.Fatalf("a browser of loupe's: %v", err)
	}
	for _, tc := range []struct {
		name   string
		op     *ops.Op
		page   *fakePage
		own    string
		answer bool
		code   apitype.Code
	}{
		{"a tab loupe opened", read, &fakePage{id: "s2"}, "s2", false, ""},
		{"its popup", read, &fakePage{id: "s3", opener: "s2"}, "s2", false, ""},
		{"the person's tab, approved", read, &fakePage{id: "s1"}, "", true, ""},
		{"the person's tab, denied", describe[nothing]("click", ops.Write), &fakePage{id: "s1"}, "", false, apitype.Denied},
		{"on the session", describe[nothing]("tabs", ops.Read, sessionWide), &fakePage{id: "s1"}, "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, nil, tc.page)
			c.sess.SetPersonal()
			if tc.own != "" {
				c.sess.MarkOwn(tc.own)
			}
			if tc.own == "" && !tc.op.SessionWide {
				answerFirst(t, x.waiting, tc.answer)
			}
			_, err := enter(t, personalStage{x}, c)
			wantCode(t, err, tc.code)
		})
	}
}
