package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

// viewData is the JSON a view page embeds; the page's script renders it.
// Keys are short: a 100 MB session repeats them a million times.
type viewData struct {
	Messages    []viewMessage    `json:"messages"`
	Tools       []viewTool       `json:"tools"`
	Compactions []viewCompaction `json:"compactions"`
	Tasks       []viewTask       `json:"tasks"`
	Files       []viewFile       `json:"files"`
}

type viewMessage struct {
	Role   string   `json:"r"`
	Kind   string   `json:"k,omitempty"`
	Text   string   `json:"t"`
	Time   string   `json:"ts,omitempty"`
	Agent  string   `json:"a,omitempty"`
	Side   bool     `json:"sc,omitempty"`
	Tools  []int    `json:"tl,omitempty"` // indexes into viewData.Tools
	Images []string `json:"img,omitempty"`
}

type viewTool struct {
	Name    string `json:"n"`
	Input   string `json:"in"`
	Output  string `json:"out"`
	OK      bool   `json:"ok"`
	Command string `json:"cmd,omitempty"`
	Time    string `json:"ts,omitempty"`
	Side    bool   `json:"sc,omitempty"`
}

type viewCompaction struct {
	At      int    `json:"at"` // messages before the boundary
	Trigger string `json:"trigger"`
	Pre     int64  `json:"pre"`
	Post    int64  `json:"post,omitempty"`
	Time    string `json:"ts,omitempty"`
	Summary string `json:"summary"`
}

type viewTask struct {
	Content string `json:"c"`
	Status  string `json:"s"`
}

type viewFile struct {
	Path   string `json:"p"`
	Reads  int    `json:"r"`
	Edits  int    `json:"e"`
	Writes int    `json:"w"`
}

func stamp(t time.Time) string { return format(t, time.RFC3339) }

func buildViewData(st *archive.State) *viewData {
	d := &viewData{
		Messages:    make([]viewMessage, 0, len(st.Messages)),
		Tools:       make([]viewTool, 0, len(st.Tools)),
		Compactions: []viewCompaction{},
		Tasks:       []viewTask{},
		Files:       make([]viewFile, 0, len(st.Files)),
	}
	toolIx := make(map[string]int, len(st.Tools))
	for _, t := range st.Tools {
		if _, dup := toolIx[t.ID]; !dup && t.ID != "" {
			toolIx[t.ID] = len(d.Tools)
		}
		d.Tools = append(d.Tools, viewTool{Name: t.Name, Input: t.Input, Output: t.Output, OK: t.Success,
			Command: t.Command, Time: stamp(t.Timestamp), Side: t.Sidechain})
	}
	imgs := newImageFinder(st)
	for _, m := range st.Messages {
		vm := viewMessage{Role: m.Role, Kind: m.Kind, Text: m.Text, Time: stamp(m.Timestamp),
			Agent: m.AgentID, Side: m.Sidechain}
		for _, id := range m.ToolCallIDs {
			if i, ok := toolIx[id]; ok {
				vm.Tools = append(vm.Tools, i)
			}
		}
		vm.Images = imgs.images(m.Ref)
		d.Messages = append(d.Messages, vm)
	}
	for _, c := range st.Compactions {
		d.Compactions = append(d.Compactions, viewCompaction{At: c.MessageIndex, Trigger: c.Trigger,
			Pre: c.PreTokens, Post: c.PostTokens, Time: stamp(c.Timestamp), Summary: c.Summary})
	}
	for _, group := range [][]archive.Task{st.Tasks.Active, st.Tasks.Pending, st.Tasks.Completed} {
		for _, t := range group {
			d.Tasks = append(d.Tasks, viewTask{Content: t.Content, Status: t.Status})
		}
	}
	for _, f := range st.Files {
		d.Files = append(d.Files, viewFile{Path: f.Path, Reads: f.Reads, Edits: f.Edits, Writes: f.Writes})
	}
	return d
}

// MaxImageBytes bounds one inline image (its base64 text).
const MaxImageBytes = 8 << 20

// imageTypes are the MIME types a view shows inline; anything else (SVG
// included: it can carry script) is left out.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imageFinder finds the images of a message in the raw transcript line it
// was read from. Only lines that mention an image are parsed.
type imageFinder struct {
	raw   []archive.RawFile
	lines map[int][][]byte // file → its lines, split on first use
}

func newImageFinder(st *archive.State) *imageFinder {
	if len(st.Raw) == 0 {
		return nil
	}
	return &imageFinder{raw: st.Raw, lines: map[int][][]byte{}}
}

func (f *imageFinder) images(ref archive.RawRef) []string {
	if f == nil || ref.File < 0 || ref.File >= len(f.raw) {
		return nil
	}
	ls, ok := f.lines[ref.File]
	if !ok {
		data := f.raw[ref.File].Data
		if bytes.Contains(data, []byte(`image`)) {
			ls = bytes.Split(data, []byte("\n"))
		}
		f.lines[ref.File] = ls
	}
	if ref.Line < 0 || ref.Line >= len(ls) {
		return nil
	}
	line := ls[ref.Line]
	if !bytes.Contains(line, []byte(`image`)) || !bytes.Contains(line, []byte(`base64`)) {
		return nil
	}
	var v any
	if json.Unmarshal(line, &v) != nil {
		return nil
	}
	var out []string
	walkImages(v, 0, &out)
	return out
}

// walkImages collects the data: URIs of the images in a decoded JSON value:
// Claude's {"type":"image","source":{"type":"base64","media_type":…,
// "data":…}} blocks and the "data:image/…;base64,…" URLs of other
// assistants.
func walkImages(v any, depth int, out *[]string) {
	if depth > 64 || len(*out) >= 32 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if src, ok := x["source"].(map[string]any); ok && src["type"] == "base64" {
			mt, _ := src["media_type"].(string)
			data, _ := src["data"].(string)
			if u, ok := dataURI(mt, data); ok {
				*out = append(*out, u)
				return
			}
		}
		for _, k := range []string{"image_url", "url"} {
			s, ok := x[k].(string)
			if !ok {
				if m, ok := x[k].(map[string]any); ok {
					s, _ = m["url"].(string)
				}
			}
			if rest, ok := strings.CutPrefix(s, "data:"); ok {
				mt, data, ok := strings.Cut(rest, ";base64,")
				if u, good := dataURI(mt, data); ok && good {
					*out = append(*out, u)
					return
				}
			}
		}
		for _, e := range x {
			walkImages(e, depth+1, out)
		}
	case []any:
		for _, e := range x {
			walkImages(e, depth+1, out)
		}
	}
}

// dataURI is the data: URI of an image of an allowed type whose data is
// valid base64 of a bounded size.
func dataURI(mediaType, data string) (string, bool) {
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	if !imageTypes[mediaType] || data == "" || len(data) > MaxImageBytes {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	// The bytes must be an image of that type (net/http's sniffing).
	if err != nil || http.DetectContentType(b) != mediaType {
		return "", false
	}
	return "data:" + mediaType + ";base64," + data, true
}

// RedactState replaces every text of st that a view shows (messages, tool
// inputs, outputs and commands, compaction summaries, todos, file paths)
// with redact(text). `ben10 view` applies it to sessions read straight
// from an assistant's transcript, which were never redacted.
func RedactState(st *archive.State, redact func(string) string) {
	for i := range st.Messages {
		st.Messages[i].Text = redact(st.Messages[i].Text)
	}
	for i := range st.Tools {
		t := &st.Tools[i]
		t.Input, t.Output, t.Command = redact(t.Input), redact(t.Output), redact(t.Command)
	}
	for i := range st.Compactions {
		st.Compactions[i].Summary = redact(st.Compactions[i].Summary)
	}
	for _, ts := range [][]archive.Task{st.Tasks.Active, st.Tasks.Pending, st.Tasks.Completed} {
		for i := range ts {
			ts[i].Content = redact(ts[i].Content)
		}
	}
	for i := range st.Files {
		st.Files[i].Path = redact(st.Files[i].Path)
	}
	st.Meta.Title = redact(st.Meta.Title)
}
