package web

import (
	"embed"
	"html/template"
	"time"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/store"
)

// The pages' style, scripts and templates, in assets/: view.css styles
// view pages and the server's pages; view.js renders the session JSON of
// a view page, and only ever puts transcript strings into the document as
// text (textContent) or as the src of an <img> whose URI it checked to be
// a base64 image; ui.js is the server pages' copy buttons; view.html
// ("head" and "tail") and ui.html are the html/template pages.
//
//go:embed assets
var assets embed.FS

var (
	viewCSS = asset("assets/view.css")
	viewJS  = asset("assets/view.js")
	uiJS    = asset("assets/ui.js")
)

func asset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err) // embedded above
	}
	return string(b)
}

// templates are view.html's "head" and "tail" and ui.html. date stamps a
// view page's times to the second, minute a listing's to the minute.
var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"csp":       ContentSecurityPolicy,
	"uiCSP":     uiCSP,
	"date":      func(t time.Time) string { return format(t, "2006-01-02 15:04:05Z") },
	"minute":    func(t time.Time) string { return format(t, "2006-01-02 15:04Z") },
	"size":      store.FormatBytes,
	"untrusted": untrusted,
}).ParseFS(assets, "assets/*.html"))

// untrusted says why an archive of trust t (Entry.Trust) is not this
// user's own, "" when it is or could not be read (its error says why).
func untrusted(t string) string {
	if t == "" || index.Trusted(t) {
		return ""
	}
	return index.TrustReason(t)
}

// format is t in UTC as layout, "" for the zero time.
func format(t time.Time, layout string) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(layout)
}
