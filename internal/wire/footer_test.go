package wire

import "testing"

func TestFooter(t *testing.T) {
	text := "surface s1: \"A\" https://a.test/\n- button \"Go\" [ref=e1]\n"
	full := text + Footer(text)
	if full != text+"[55 chars, ~14 tokens]\n" {
		t.Fatalf("footer: %q", full)
	}
	if WithoutFooter(full) != text {
		t.Fatalf("WithoutFooter: %q", WithoutFooter(full))
	}
	if WithoutFooter("no footer") != "no footer\n" {
		t.Fatalf("WithoutFooter of a text without one: %q", WithoutFooter("no footer"))
	}
}
