// Package web shows saved sessions in a browser: [Render] writes one
// session as a single self-contained HTML file (what `ben10 view` writes),
// and [Server] is the local, read-only web UI and JSON API that
// `ben10 serve` runs over every project Ben10 knows.
//
// # The view
//
// A view page is one HTML file with inline CSS and a little JavaScript and
// no network request of any kind. The session is embedded once, as JSON in
// a <script type="application/json"> element, and the page's own script
// renders it in chunks, so a page of a 100 MB session opens quickly and
// stays usable. Every transcript string reaches the page as JSON text
// (with <, > and & escaped) and is put into the document with textContent,
// never as markup: a transcript that contains <script> or javascript:
// links renders inert. A Content-Security-Policy meta tag allows only the
// page's own script and style (by nonce) and data: images.
//
// # The server
//
// [Server] is an [net/http.Handler]. Every page and API call needs the
// token ([LoadOrCreateToken]): as an "Authorization: Bearer" header, or in
// the HttpOnly, SameSite=Strict cookie that the one-time /login link sets.
// It answers GET and HEAD only, limits the request rate, refuses Host
// headers other than the ones it serves (DNS rebinding) and never builds a
// file path from a request: projects, saved contexts and snapshots are
// named by identifiers looked up in listings. Search asks the recall index
// (package index, [ServerOptions].Index), else each project's snapshots;
// either way only this user's archives are searched.
// The JSON API is described in docs/API.md.
package web
