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
		Title:    pageTitle(st),
		Nonce:    opts.Nonce,
		Source:   opts.Source,
		Commands: opts.Commands,
		BackURL:  opts.BackURL,
		Meta:     st.Meta,
		Rendered: opts.Now.UTC().Format(time.RFC3339),
		CSS:      template.CSS(viewCSS),
	}
	if err := viewTemplates.ExecuteTemplate(bw, "head", head); err != nil {
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
	if err := viewTemplates.ExecuteTemplate(bw, "tail", pageTail{Nonce: opts.Nonce, JS: template.JS(viewJS)}); err != nil {
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
	Commands                                []string
	Meta                                    archive.Metadata
	CSS                                     template.CSS
}

type pageTail struct {
	Nonce string
	JS    template.JS
}

var viewTemplates = template.Must(template.New("view").Funcs(template.FuncMap{
	"csp": ContentSecurityPolicy,
	"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
}).Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{csp .Nonce}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style nonce="{{.Nonce}}">{{.CSS}}</style>
</head><body>
<header id="top">
{{if .BackURL}}<nav><a href="{{.BackURL}}">← projects</a></nav>{{end}}
<h1 id="title">{{.Title}}</h1>
<div class="meta">
{{with .Meta.Harness}}<span class="tag harness">{{.}}</span>{{end}}
{{with .Meta.SessionID}}<span>session <code>{{.}}</code></span>{{end}}
{{with .Meta.Model}}<span>model {{.}}</span>{{end}}
{{with .Meta.GitBranch}}<span>branch {{.}}</span>{{end}}
{{with .Meta.DirectoryPath}}<span>in <code>{{.}}</code></span>{{end}}
{{with date .Meta.FirstActivity}}<span>from {{.}}</span>{{end}}
{{with date .Meta.LastActivity}}<span>to {{.}}</span>{{end}}
</div>
{{with .Source}}<div class="source">{{.}}</div>{{end}}
{{range .Commands}}<div class="cmd"><code>{{.}}</code> <button type="button" class="copy" data-copy="{{.}}">copy</button></div>{{end}}
</header>
<main>
<aside id="side">
<section id="tasks"><h2>Todos</h2><div class="body"></div></section>
<section id="files"><h2>Files touched</h2><div class="body"></div></section>
<section id="commands"><h2>Commands</h2><div class="body"></div></section>
<section id="compactions"><h2>Compactions</h2><div class="body"></div></section>
</aside>
<div id="conv">
<div id="bar"><input id="filter" type="search" placeholder="Filter messages and tools…" autocomplete="off">
<label><input type="checkbox" class="role" value="user" checked> user</label>
<label><input type="checkbox" class="role" value="assistant" checked> assistant</label>
<label><input type="checkbox" class="role" value="system" checked> system</label>
<span id="count"></span></div>
<noscript><p>This page needs JavaScript to show the conversation.</p></noscript>
<div id="messages"></div>
<button type="button" id="more" hidden>Show more</button>
</div>
</main>
<footer>Rendered by Ben10 at {{.Rendered}}. Text is shown as stored (redacted when saved with redaction).</footer>
{{end}}
{{define "tail"}}<script nonce="{{.Nonce}}">{{.JS}}</script>
</body></html>
{{end}}`))
