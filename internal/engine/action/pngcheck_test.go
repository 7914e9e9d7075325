package action

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

func tinyPNG(t testing.TB) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCheckPNG(t *testing.T) {
	good := tinyPNG(t)
	if err := checkPNG(good); err != nil {
		t.Fatalf("a PNG: %v", err)
	}
	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 0xff
	for name, b := range map[string][]byte{
		"empty":       nil,
		"not a PNG":   []byte("GIF89a"),
		"cut short":   good[:len(good)-5],
		"no IEND":     good[:len(good)-12],
		"bit flipped": flip,
		"trailing":    append(append([]byte(nil), good...), 0),
		"signature":   good[:8],
	} {
		if err := checkPNG(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzCheckPNG: checkPNG never panics, and what it accepts the standard
// decoder reads.
func FuzzCheckPNG(f *testing.F) {
	good := tinyPNG(f)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\xff\xff\xff\xffIHDR"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if checkPNG(b) == nil {
			if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
				t.Fatalf("accepted what the decoder refuses: %v", err)
			}
		}
	})
}
