package archive

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Span locates one piece of a record's text inside a raw transcript line:
// the bytes line[Off:Off+Len]. A JSON string literal (with its quotes) is
// unescaped; with Verbatim set the bytes are taken as they are (a JSON value
// such as a tool input). Records that carry spans are stored without their
// text: the text is read back from the raw transcript, so it is stored once.
type Span struct {
	Off      uint32 `msgpack:"o"`
	Len      uint32 `msgpack:"n"`
	Verbatim bool   `msgpack:"v,omitempty"`
}

// SpanText resolves spans against line, joining the pieces with "\n". It
// reports false when a span falls outside the line. Importers must build a
// record's text with this same function so that the stored pointer and the
// text agree (Encode checks that they do before dropping the text).
func SpanText(line []byte, spans []Span) (string, bool) {
	if len(spans) == 1 {
		return spanPiece(line, spans[0])
	}
	var sb strings.Builder
	for i, s := range spans {
		p, ok := spanPiece(line, s)
		if !ok {
			return "", false
		}
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(p)
	}
	return sb.String(), true
}

// spanTextEqual reports whether SpanText(line, spans) would return text,
// without building the string: plain pieces are compared in place, escaped
// ones decoded into *scratch (reused between calls).
func spanTextEqual(line []byte, spans []Span, text string, scratch *[]byte) bool {
	rest := text
	for i, s := range spans {
		if i > 0 {
			if len(rest) == 0 || rest[0] != '\n' {
				return false
			}
			rest = rest[1:]
		}
		end := uint64(s.Off) + uint64(s.Len)
		if end > uint64(len(line)) {
			return false
		}
		b := line[s.Off:end]
		if !s.Verbatim {
			if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
				return false
			}
			in := b[1 : len(b)-1]
			if !plainASCII(in) && !(bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) && !hasControl(in)) {
				out, ok := appendUnquoted((*scratch)[:0], in)
				*scratch = out
				if !ok {
					return false
				}
				in = out
			}
			b = in
		}
		if len(b) > len(rest) || string(b) != rest[:len(b)] {
			return false
		}
		rest = rest[len(b):]
	}
	return len(rest) == 0
}

func spanPiece(line []byte, s Span) (string, bool) {
	end := uint64(s.Off) + uint64(s.Len)
	if end > uint64(len(line)) {
		return "", false
	}
	b := line[s.Off:end]
	if s.Verbatim {
		return string(b), true
	}
	return JSONString(b)
}

// JSONString decodes one JSON string literal (with quotes). Invalid UTF-8
// and lone surrogates become U+FFFD, as encoding/json does; it reports
// false exactly when encoding/json would refuse the literal.
func JSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	in := b[1 : len(b)-1]
	if plainASCII(in) || (bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) && !hasControl(in)) {
		return string(in), true
	}
	out, ok := appendUnquoted(make([]byte, 0, len(in)), in)
	if !ok || len(out) == 0 {
		return "", ok
	}
	// out is this call's own buffer, never written again: the string
	// shares it instead of copying it.
	return unsafe.String(&out[0], len(out)), true
}

// JSONStringBytes is the decoded value of the JSON string literal b as
// JSONString gives it, without a copy when b holds no escape (the result
// then aliases b); otherwise decoded into scratch (grown as needed; the
// result aliases it). ok is JSONString's.
func JSONStringBytes(b []byte, scratch *[]byte) (v []byte, ok bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return nil, false
	}
	in := b[1 : len(b)-1]
	if plainASCII(in) || (bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) && !hasControl(in)) {
		return in, true
	}
	out, ok := appendUnquoted((*scratch)[:0], in)
	*scratch = out
	if !ok {
		return nil, false
	}
	return out, true
}

// plainRun returns the length of the run of plainByte bytes at the start
// of b, 8 bytes at a time.
func plainRun(b []byte) int {
	i := 0
	for i+8 <= len(b) && !notPlain8(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// notPlain8 reports whether one of the 8 bytes of x (little-endian) is not
// a plainByte: a control byte, a byte ≥ 0x80, '"' or '\\' (exact: each
// term is the classic has-a-zero-byte / has-a-byte-less-than test).
func notPlain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return (x|(x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0
}

// plainASCII reports whether b is printable ASCII without quote or
// backslash: the common case, decoded by a plain copy.
func plainASCII(b []byte) bool {
	return plainRun(b) == len(b)
}

// appendUnquoted appends the decoded contents of a JSON string literal
// (without its quotes) to dst, with encoding/json's rules: the escapes of
// RFC 8259, surrogate pairs combined, lone surrogates and invalid UTF-8
// bytes replaced by U+FFFD. It reports false for what encoding/json
// rejects: a control byte, an unescaped quote, a bad escape.
func appendUnquoted(dst, in []byte) ([]byte, bool) {
	for i := 0; i < len(in); {
		// Copy a run of plain ASCII at once.
		j := i + plainRun(in[i:])
		if j > i {
			dst = append(dst, in[i:j]...)
			if i = j; i == len(in) {
				break
			}
		}
		c := in[i]
		switch {
		case c == '\\':
			if i+1 >= len(in) {
				return dst, false
			}
			switch in[i+1] {
			case '"', '\\', '/':
				dst = append(dst, in[i+1])
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(in[i+2:])
				if r < 0 {
					return dst, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
						r2 := hex4(in[i+2:])
						if r2 < 0 {
							return dst, false
						}
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							dst = utf8.AppendRune(dst, d)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				return dst, false
			}
			i += 2
		case c == '"' || c < 0x20:
			return dst, false
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, in[i:i+size]...)
			}
			i += size
		}
	}
	return dst, true
}

// plainByte marks the bytes appendUnquoted copies as they are: printable
// ASCII other than quote and backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// hex4 parses four hex digits at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' {
			return true
		}
	}
	return false
}

// lineStarts returns the offset of every line start in data (lines end at
// '\n'; a last line without one still counts).
func lineStarts(data []byte) []int {
	// A capacity guess rather than a counting pass over data (this runs
	// over a whole transcript file): appends grow it when lines are short.
	starts := make([]int, 0, len(data)/1024+16)
	for off := 0; off < len(data); {
		starts = append(starts, off)
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return starts
}

// lineAt returns line n of data (without its '\n') given lineStarts.
func lineAt(data []byte, starts []int, n int) ([]byte, bool) {
	if n < 0 || n >= len(starts) {
		return nil, false
	}
	end := len(data)
	if n+1 < len(starts) {
		end = starts[n+1] - 1
	}
	return data[starts[n]:end], true
}
