package hookfast

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/internal/jscan"
)

// unmarshalTicket is json.Unmarshal(data, t) into a zero t (LoadTicket's
// case) for the tickets WriteTicket writes, without encoding/json's reflection (building its decoder for
// Ticket was a measurable part of a prompt's run). The document is checked
// with json.Valid (encoding/json's scanner: what it rejects is rejected),
// then walked with jscan. Anything WriteTicket does not write — a key
// spelled otherwise, a repeated key, null, a string with an escape or
// outside plain UTF-8, a number strconv does not take as is — is left to
// encoding/json itself, so the result is always encoding/json's.
func unmarshalTicket(data []byte, t *Ticket) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, t)
	}
	var fast Ticket
	if decodeTicket(data, &fast) {
		*t = fast
		return nil
	}
	return json.Unmarshal(data, t)
}

// decodeTicket decodes the common form of a ticket; false leaves it to
// encoding/json.
func decodeTicket(b []byte, t *Ticket) bool {
	root, err := jscan.ParseLine(b)
	if err != nil {
		return false
	}
	return eachKnownField(b, root, func(k string, x jscan.Val) bool {
		switch k {
		case "v":
			return plainInt(b, x, &t.Version)
		case "project":
			return plainString(b, x, &t.Project)
		case "root":
			return plainString(b, x, &t.Root)
		case "primary":
			return plainString(b, x, &t.Primary)
		case "pacing":
			return decodePacing(b, x, &t.Pacing)
		case "files":
			return decodeFiles(b, x, &t.Files)
		}
		return false
	})
}

// eachKnownField calls field for every member of the object v, each key
// once: false when v is not an object, a key repeats or field refuses a
// member (a key it does not know or a value not in the plain form).
func eachKnownField(b []byte, v jscan.Val, field func(k string, x jscan.Val) bool) bool {
	if v.Kind(b) != '{' {
		return false
	}
	ok := true
	seen := map[string]bool{}
	err := jscan.EachField(b, v, func(key []byte, x jscan.Val) {
		k := string(key)
		if !ok || seen[k] {
			ok = false
			return
		}
		seen[k] = true
		ok = field(k, x)
	})
	return err == nil && ok
}

func decodePacing(b []byte, v jscan.Val, p *Pacing) bool {
	return eachKnownField(b, v, func(k string, x jscan.Val) bool {
		switch k {
		case "auto_save":
			return plainBool(b, x, &p.AutoSave)
		case "checkpoint_interval":
			return plainInt(b, x, &p.Interval)
		case "checkpoint_minutes":
			return plainInt(b, x, &p.Minutes)
		}
		return false
	})
}

func decodeFiles(b []byte, v jscan.Val, files *[]FileID) bool {
	if v.Kind(b) != '[' {
		return false
	}
	ok := true
	fs := []FileID{}
	err := jscan.EachElem(b, v, func(e jscan.Val) {
		if !ok {
			return
		}
		var f FileID
		ok = eachKnownField(b, e, func(k string, x jscan.Val) bool {
			switch k {
			case "path":
				return plainString(b, x, &f.Path)
			case "exists":
				return plainBool(b, x, &f.Exists)
			case "size":
				return plainInt64(b, x, &f.Size)
			case "mtime":
				return plainInt64(b, x, &f.ModNs)
			case "ino":
				return plainUint64(b, x, &f.Ino)
			case "ctime":
				return plainInt64(b, x, &f.CtNs)
			}
			return false
		})
		fs = append(fs, f)
	})
	if err != nil || !ok {
		return false
	}
	*files = fs
	return true
}

// plainString takes a string literal with no escape, no control
// character and valid UTF-8: its bytes are its value.
func plainString(b []byte, x jscan.Val, dst *string) bool {
	r := x.Raw(b)
	if len(r) < 2 || r[0] != '"' {
		return false
	}
	in := r[1 : len(r)-1]
	for _, c := range in {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
	}
	if !utf8.Valid(in) {
		return false
	}
	*dst = string(in)
	return true
}

func plainBool(b []byte, x jscan.Val, dst *bool) bool {
	switch string(x.Raw(b)) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return false
	}
	return true
}

func plainInt64(b []byte, x jscan.Val, dst *int64) bool {
	n, err := strconv.ParseInt(string(x.Raw(b)), 10, 64)
	if err != nil {
		return false
	}
	*dst = n
	return true
}

func plainInt(b []byte, x jscan.Val, dst *int) bool {
	var n int64
	if !plainInt64(b, x, &n) || int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return true
}

func plainUint64(b []byte, x jscan.Val, dst *uint64) bool {
	n, err := strconv.ParseUint(string(x.Raw(b)), 10, 64)
	if err != nil {
		return false
	}
	*dst = n
	return true
}
