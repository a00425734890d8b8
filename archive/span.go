package archive

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
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
// and lone surrogates become U+FFFD, as encoding/json does.
func JSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	in := b[1 : len(b)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) && !hasControl(in) {
		return string(in), true
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", false
	}
	return s, true
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
	starts := make([]int, 0, bytes.Count(data, []byte{'\n'})+1)
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
