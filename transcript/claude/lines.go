package claude

import (
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/jscan"
)

// sidechain reports whether a line belongs to a sidechain. A main file
// whose first conversation line is a sidechain's is a subagent's own
// transcript opened by itself: its lines are then its main chain (model,
// context, requests and commands are read from them).
func (im *importer) sidechain(fi int, h *hdr) bool {
	if fi == 0 && !im.sideKnown {
		if t := h.typ; t.OK() {
			im.sideKnown = true
			im.standalone = h.isSidechain
		}
	}
	return h.isSidechain && !(fi == 0 && im.standalone)
}

// aiTitleLine reads {"type":"ai-title","aiTitle":…}: the title Claude
// Code generated for the session. A title the user set (custom-title)
// wins; the latest generated one is kept otherwise.
func (im *importer) aiTitleLine(b []byte, h *hdr, sideFile bool) {
	if sideFile || im.customTitled {
		return
	}
	if t := strings.TrimSpace(str(b, h.aiTitle)); t != "" {
		im.st.Meta.Title = t
	}
}

// attachmentLine reads an attachment line. The one kind the model takes
// is a prompt the user typed while Claude was busy, stored only as
// {"attachment":{"type":"queued_command","prompt":…,"origin":{"kind":"human"}}}:
// it is a user request. Queued task notifications (another origin, or
// none) and every other attachment are kept in the raw transcript only.
func (im *importer) attachmentLine(b []byte, h *hdr, ts time.Time, side bool, agent string, ref archive.RawRef) {
	a := h.attachment
	if a.Kind(b) != '{' {
		return
	}
	var typ, prompt, origin jscan.Val
	_ = jscan.EachField(b, a, func(k []byte, v jscan.Val) {
		switch string(k) {
		case "type":
			typ = v
		case "prompt":
			prompt = v
		case "origin":
			origin = v
		}
	})
	if view(b, typ) != "queued_command" || origin.Kind(b) != '{' || view(b, jscan.Field(b, origin, "kind")) != "human" {
		return
	}
	msg := archive.Message{
		ID: str(b, h.uuid), ParentID: str(b, h.parent), Role: "user", Kind: "prompt",
		Timestamp: ts, Sidechain: side, AgentID: agent, Ref: ref,
	}
	switch prompt.Kind(b) {
	case '"':
		msg.TextSpans = []archive.Span{{Off: uint32(prompt.S), Len: uint32(prompt.E - prompt.S)}}
		msg.Text, _ = archive.SpanText(b, msg.TextSpans)
	case '[':
		var spans []archive.Span
		var images []int
		_ = jscan.EachElem(b, prompt, func(blk jscan.Val) {
			if blk.Kind(b) != '{' {
				return
			}
			switch view(b, jscan.Field(b, blk, "type")) {
			case "text":
				if t := jscan.Field(b, blk, "text"); t.IsString(b) {
					spans = append(spans, archive.Span{Off: uint32(t.S), Len: uint32(t.E - t.S)})
				}
			case "image":
				images = append(images, len(spans))
			}
		})
		if len(images) > 0 {
			msg.Text = withImages(b, spans, images)
		} else if len(spans) > 0 {
			msg.TextSpans = spans
			msg.Text, _ = archive.SpanText(b, spans)
		}
	}
	if strings.TrimSpace(msg.Text) == "" {
		return
	}
	im.st.Messages = append(im.st.Messages, msg)
}

// imageMarker stands for a pasted image in a message's text.
const imageMarker = "[image]"

// withImages is the text of spans with an imageMarker line where each
// image block came (images[i] is how many text spans preceded it).
func withImages(b []byte, spans []archive.Span, images []int) string {
	var parts []string
	ii := 0
	for i := 0; i <= len(spans); i++ {
		for ii < len(images) && images[ii] == i {
			parts = append(parts, imageMarker)
			ii++
		}
		if i < len(spans) {
			t, _ := archive.SpanText(b, spans[i:i+1])
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}
