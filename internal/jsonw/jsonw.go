// Package jsonw appends JSON values exactly as encoding/json encodes them,
// without its reflection: for the small records a hook writes on every
// run (package hook's state and output, package store's audit line),
// where building encoding/json's per-type encoders costs more than the
// encoding itself. The differential tests compare every byte with
// encoding/json's.
package jsonw

import (
	"time"
	"unicode/utf8"
)

// AppendString appends s as encoding/json encodes a string: with
// escapeHTML, <, > and & are escaped too (json.Marshal's default);
// invalid UTF-8 becomes \ufffd; U+2028 and U+2029 are always escaped.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendTime appends t as encoding/json encodes a time.Time: its
// MarshalJSON, which is the quoted AppendText (RFC 3339 with nanoseconds;
// an error for a year outside 0–9999).
func AppendTime(dst []byte, t time.Time) ([]byte, error) {
	dst, err := t.AppendText(append(dst, '"'))
	if err != nil {
		return nil, err
	}
	return append(dst, '"'), nil
}
