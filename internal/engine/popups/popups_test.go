package popups

import "testing"

func TestGuard(t *testing.T) {
	const noGesture, gesture = `{"url":"/p","userGesture":false}`, `{"url":"/p","userGesture":true}`
	for _, c := range []struct {
		name   string
		before []string // windowOpen params told of opener "A", in order
		other  string   // told of opener "B"
		forget bool
		want   []bool // Allow("A") called this many times
	}{
		{"no word: let be", nil, "", false, []bool{true}},
		{"gesture", []string{gesture}, "", false, []bool{true}},
		{"no gesture", []string{noGesture}, "", false, []bool{false}},
		{"the last word counts", []string{noGesture, noGesture, gesture}, "", false, []bool{true}},
		{"a gesture used up by the click's first window", []string{gesture, noGesture}, "", false, []bool{false}},
		{"a word is used once", []string{noGesture}, "", false, []bool{false, true}},
		{"another opener's word is not this one's", nil, noGesture, false, []bool{true}},
		{"a forgotten opener", []string{noGesture}, "", true, []bool{true}},
		{"unreadable params are no word", []string{`{"userGesture":`}, "", false, []bool{true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g Guard
			for _, p := range c.before {
				g.Opening("A", []byte(p))
			}
			if c.other != "" {
				g.Opening("B", []byte(c.other))
			}
			if c.forget {
				g.Forget("A")
			}
			for i, want := range c.want {
				if got := g.Allow("A"); got != want {
					t.Errorf("Allow #%d = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}
