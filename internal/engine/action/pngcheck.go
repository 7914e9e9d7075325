package action

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// checkPNG verifies that b is a whole PNG before it is written or handed
// to a caller: the signature, every chunk's length and CRC, an IHDR first
// with a non-empty size, image data, and an IEND last with nothing after
// it. A capture cut short or corrupted on its way is an error, not a
// broken file. It walks the chunks (CRC-32 runs at memory speed) rather
// than decoding the pixels, which would cost a full-page capture its
// size in CPU.
func checkPNG(b []byte) error {
	if !bytes.HasPrefix(b, pngSignature) {
		return errors.New("not a PNG (no signature)")
	}
	rest := b[len(pngSignature):]
	first, data := true, false
	for {
		if len(rest) < 12 {
			return errors.New("PNG cut short (no IEND)")
		}
		n := binary.BigEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-12) {
			return fmt.Errorf("PNG cut short (a %d-byte chunk, %d bytes left)", n, len(rest)-12)
		}
		typ, body := rest[4:8], rest[8:8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			return fmt.Errorf("PNG corrupt (bad CRC in its %q chunk)", typ)
		}
		switch string(typ) {
		case "IHDR":
			if !first || n != 13 || binary.BigEndian.Uint32(body) == 0 || binary.BigEndian.Uint32(body[4:]) == 0 {
				return errors.New("PNG corrupt (bad IHDR)")
			}
		case "IDAT":
			data = true
		case "IEND":
			if first || !data {
				return errors.New("PNG corrupt (no image data)")
			}
			if len(rest) != 12+int(n) {
				return errors.New("PNG corrupt (bytes after IEND)")
			}
			return nil
		}
		if first && string(typ) != "IHDR" {
			return errors.New("PNG corrupt (IHDR not first)")
		}
		first = false
		rest = rest[12+n:]
	}
}

// PNGSize is the width and height in pixels a whole PNG's header gives
// (0, 0 when b is too short to have one; checkPNG has vouched for the
// rest).
func PNGSize(b []byte) (width, height int) {
	if len(b) < len(pngSignature)+16 {
		return 0, 0
	}
	ihdr := b[len(pngSignature)+8:]
	return int(binary.BigEndian.Uint32(ihdr)), int(binary.BigEndian.Uint32(ihdr[4:]))
}
