package parser

import (
	"unicode/utf8"
)

// decodeName turns a name from the key text into a Go string, never failing.
// ART prints dex strings in Modified UTF-8 (docs/formats.md §3.5): characters outside
// the Basic Multilingual Plane come as CESU-8 surrogate pairs and NUL as
// C0 80. Valid UTF-8 — nearly every name — is taken as is; anything else is
// decoded as MUTF-8, with U+FFFD for bytes that are neither.
func decodeName(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]rune, 0, len(b))
	for i := 0; i < len(b); {
		switch r, n := decodeMUTF8(b[i:]); {
		case r >= 0xD800 && r <= 0xDBFF:
			// A high surrogate: join it with the low surrogate that follows.
			if lo, m := decodeMUTF8(b[i+n:]); lo >= 0xDC00 && lo <= 0xDFFF {
				out = append(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
				i += n + m
				continue
			}
			out = append(out, utf8.RuneError)
			i += n
		case r >= 0xDC00 && r <= 0xDFFF:
			out = append(out, utf8.RuneError)
			i += n
		default:
			out = append(out, r)
			i += n
		}
	}
	return string(out)
}

// decodeMUTF8 decodes one 1-3 byte sequence, allowing the overlong C0 80 and
// encoded surrogates that strict UTF-8 rejects. It always consumes ≥ 1 byte
// (unless b is empty) and returns RuneError for an invalid sequence.
func decodeMUTF8(b []byte) (rune, int) {
	if len(b) == 0 {
		return utf8.RuneError, 0
	}
	c := b[0]
	switch {
	case c < 0x80:
		return rune(c), 1
	case c&0xE0 == 0xC0 && len(b) >= 2 && b[1]&0xC0 == 0x80:
		return rune(c&0x1F)<<6 | rune(b[1]&0x3F), 2
	case c&0xF0 == 0xE0 && len(b) >= 3 && b[1]&0xC0 == 0x80 && b[2]&0xC0 == 0x80:
		return rune(c&0x0F)<<12 | rune(b[1]&0x3F)<<6 | rune(b[2]&0x3F), 3
	case c&0xF8 == 0xF0 && len(b) >= 4:
		// Plain 4-byte UTF-8 mixed with MUTF-8 elsewhere in the name.
		if r, n := utf8.DecodeRune(b); r != utf8.RuneError {
			return r, n
		}
	}
	return utf8.RuneError, 1
}
