package web

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

// ViewOptions tune Render. The zero value is ready to use.
type ViewOptions struct {
	// Source says where the session was read from ("checkpoint 3 of
	// ~/src/app"); shown under the title.
	Source string
	// Unauthenticated, when set, says why this user's key does not
	// authenticate the archive (index.TrustReason): the page then says
	// so above the session, in a mark that cannot be missed.
	Unauthenticated string
	// Commands are shell commands shown with a copy button (for example
	// "claude --resume <id>").
	Commands []string
	// BackURL, when set, is a link shown at the top (the server's project
	// page). It must be a relative URL the caller built.
	BackURL string
	// Nonce is the Content-Security-Policy nonce of the page's script and
	// style; empty means a fresh random one.
	Nonce string
	// Now stamps the page ("rendered at"); zero means time.Now.
	Now time.Time
}

// Render writes st as one self-contained HTML page (see the package
// documentation). Strings are written as they are stored: an archive
// saved with redaction shows the redacted text.
func Render(w io.Writer, st *archive.State, opts ViewOptions) error {
	if st == nil {
		return fmt.Errorf("web: render: no session")
	}
	if opts.Nonce == "" {
		n, err := NewNonce()
		if err != nil {
			return err
		}
		opts.Nonce = n
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	head := pageHead{
		Title:     pageTitle(st),
		Nonce:     opts.Nonce,
		Source:    opts.Source,
		Untrusted: opts.Unauthenticated,
		Commands:  opts.Commands,
		BackURL:   opts.BackURL,
		Meta:      st.Meta,
		Rendered:  opts.Now.UTC().Format(time.RFC3339),
		CSS:       template.CSS(viewCSS),
	}
	if err := templates.ExecuteTemplate(bw, "head", head); err != nil {
		return fmt.Errorf("web: render: %w", err)
	}
	// The session's JSON goes straight into the <script type=
	// "application/json"> element: encoding/json escapes <, > and & (and
	// U+2028/U+2029), so no transcript string can end the element.
	bw.WriteString(`<script type="application/json" id="ben10-data">`)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(buildViewData(st)); err != nil {
		return fmt.Errorf("web: render: encoding the session: %w", err)
	}
	bw.WriteString("</script>\n")
	if err := templates.ExecuteTemplate(bw, "tail", pageTail{Nonce: opts.Nonce, JS: template.JS(viewJS)}); err != nil {
		return fmt.Errorf("web: render: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("web: render: writing the page: %w", err)
	}
	return nil
}

// NewNonce returns a fresh random Content-Security-Policy nonce.
func NewNonce() (string, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("web: nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// ContentSecurityPolicy is the policy of a page whose script and style
// carry nonce: nothing but them and data: images, no connection, no form,
// no frame.
func ContentSecurityPolicy(nonce string) string {
	return "default-src 'none'; script-src 'nonce-" + nonce + "'; style-src 'nonce-" + nonce +
		"'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

func pageTitle(st *archive.State) string {
	t := st.Meta.Title
	if t == "" {
		t = "session " + st.Meta.SessionID
	}
	if st.Meta.SessionID == "" && st.Meta.Title == "" {
		t = "session"
	}
	return t + " — Ben10"
}

type pageHead struct {
	Title, Nonce, Source, BackURL, Rendered string
	Untrusted                               string
	Commands                                []string
	Meta                                    archive.Metadata
	CSS                                     template.CSS
}

type pageTail struct {
	Nonce string
	JS    template.JS
}
