package electron

import (
	"reflect"
	"testing"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	const (
		w1 = "6A0F2C1D9B8E47A3B5C4D2E1F0A9B8C7"
		w2 = "9E8D7C6B5A4F43E2D1C0B9A8F7E6D5C4"
		v1 = "2C3D4E5F60718293A4B5C6D7E8F9011B"
		g1 = "5F60718293A4B5C6D7E8F9011B2C3D4E"
	)
	tests := []struct {
		name string
		in   []Contents
		want map[string]Class
	}{
		{"nothing", nil, map[string]Class{}},
		{"a window's own contents is a window",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true}},
			map[string]Class{w1: {Kind: KindWindow}}},
		{"own window wins over the type (offscreen rendering)",
			[]Contents{{ID: 1, Type: "offscreen", TargetID: w1, OwnWindow: true}},
			map[string]Class{w1: {Kind: KindWindow}}},
		{"window-type contents not a window's own is a WebContentsView",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true}, {ID: 2, Type: "window", TargetID: v1}},
			map[string]Class{w1: {Kind: KindWindow}, v1: {Kind: KindWebContentsView}}},
		{"a BrowserView is a WebContentsView",
			[]Contents{{ID: 2, Type: "browserView", TargetID: v1}},
			map[string]Class{v1: {Kind: KindWebContentsView}}},
		{"a webview's parent is its host's target",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true}, {ID: 3, Type: "webview", TargetID: g1, HostID: 1}},
			map[string]Class{w1: {Kind: KindWindow}, g1: {Kind: KindWebview, ParentTargetID: w1}}},
		{"a webview hosted by a WebContentsView",
			[]Contents{{ID: 2, Type: "window", TargetID: v1}, {ID: 3, Type: "webview", TargetID: g1, HostID: 2}},
			map[string]Class{v1: {Kind: KindWebContentsView}, g1: {Kind: KindWebview, ParentTargetID: v1}}},
		{"a webview whose host has no target id has no parent",
			[]Contents{{ID: 1, Type: "window", OwnWindow: true, TargetError: "destroyed"}, {ID: 3, Type: "webview", TargetID: g1, HostID: 1}},
			map[string]Class{g1: {Kind: KindWebview}}},
		{"a webview whose host is unknown has no parent",
			[]Contents{{ID: 3, Type: "webview", TargetID: g1, HostID: 9}},
			map[string]Class{g1: {Kind: KindWebview}}},
		{"a webview without a host has no parent",
			[]Contents{{ID: 3, Type: "webview", TargetID: g1}},
			map[string]Class{g1: {Kind: KindWebview}}},
		{"a DevTools front end is other, even window-typed",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true}, {ID: 4, Type: "window", TargetID: v1, DevTools: true}},
			map[string]Class{w1: {Kind: KindWindow}, v1: {Kind: KindOther}}},
		{"DevTools shown in a BrowserWindow is still that window's page",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true, DevTools: true}},
			map[string]Class{w1: {Kind: KindWindow}}},
		{"remote, backgroundPage, offscreen and unknown types are other",
			[]Contents{
				{ID: 1, Type: "remote", TargetID: "A"},
				{ID: 2, Type: "backgroundPage", TargetID: "B"},
				{ID: 3, Type: "offscreen", TargetID: "C"},
				{ID: 4, Type: "", TargetID: "D"},
				{ID: 5, Type: "somethingNew", TargetID: "E"},
			},
			map[string]Class{"A": {Kind: KindOther}, "B": {Kind: KindOther}, "C": {Kind: KindOther}, "D": {Kind: KindOther}, "E": {Kind: KindOther}}},
		{"contents without a target id are left out",
			[]Contents{{ID: 1, Type: "window", OwnWindow: true, TargetError: "Debugger attach failed"}, {ID: 2, Type: "window", TargetID: w2, OwnWindow: true}},
			map[string]Class{w2: {Kind: KindWindow}}},
		{"a target id claimed twice is ambiguous: other",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true}, {ID: 2, Type: "webview", TargetID: w1, HostID: 1}},
			map[string]Class{w1: {Kind: KindOther}}},
		{"two windows",
			[]Contents{{ID: 1, Type: "window", TargetID: w1, OwnWindow: true}, {ID: 2, Type: "window", TargetID: w2, OwnWindow: true}},
			map[string]Class{w1: {Kind: KindWindow}, w2: {Kind: KindWindow}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Classify = %v\nwant %v", got, tc.want)
			}
		})
	}
}
