package web

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/e2e"
	"github.com/chromedp/chromedp"
)

// newBrowser starts headless Chromium (the flags the issue lists) with a
// private profile; the context ends it when the test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := e2e.Require(t, "chromium")[0]
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}

func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// checkScreenshot decodes a PNG screenshot and fails when it is blank
// (fewer than 16 distinct colours, or one colour over 98% of the pixels).
// With BEN10_SCREENSHOT_DIR set it keeps the file there as name.png.
func checkScreenshot(t *testing.T, shot []byte, name string) image.Rectangle {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	counts := map[[3]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	total, top := 0, 0
	for _, n := range counts {
		total += n
		top = max(top, n)
	}
	if len(counts) < 16 || top*100 > total*98 {
		t.Errorf("screenshot %s looks blank: %d colours, the commonest on %d of %d pixels", name, len(counts), top, total)
	}
	if dir := os.Getenv("BEN10_SCREENSHOT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644); err != nil {
			t.Error(err)
		}
	}
	return b
}

// TestRealBrowserView opens `view` pages of the four assistants' fixtures
// and of a hostile transcript in headless Chromium and checks the DOM.
func TestRealBrowserView(t *testing.T) {
	ctx := newBrowser(t)
	for _, c := range []struct {
		name, path string
		agents     bool
	}{
		{"claude", claudeFixture, true},
		{"codex", codexFixture, false},
		{"gemini", geminiFixture, false},
		{"kimi", kimiFixture, false},
		{"hostile", hostileFixture, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := importFixture(t, c.path)
			page := filepath.Join(t.TempDir(), c.name+".html")
			var buf bytes.Buffer
			if err := Render(&buf, st, ViewOptions{Source: c.path}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(page, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			run(t, ctx, "navigate", chromedp.Navigate("file://"+page))
			run(t, ctx, "wait for messages", chromedp.WaitVisible("#messages .msg"))
			if n := run(t, ctx, "count", chromedp.Evaluate[int](`document.querySelectorAll("#messages .msg").length`)); n != len(st.Messages) {
				t.Errorf("%d message elements, want %d", n, len(st.Messages))
			}
			if n := run(t, ctx, "compactions", chromedp.Evaluate[int](`document.querySelectorAll("#messages .compaction").length`)); n != len(st.Compactions) || n == 0 {
				t.Errorf("%d compaction markers, want %d (every fixture has one)", n, len(st.Compactions))
			}
			if c.agents {
				if n := run(t, ctx, "agents", chromedp.Evaluate[int](`document.querySelectorAll("#messages details.agent .msg").length`)); n == 0 {
					t.Errorf("no nested sub-agent messages")
				}
			}
			if len(st.Tools) > 0 {
				run(t, ctx, "expand a tool call", chromedp.Click("#messages details.tool > summary"))
				run(t, ctx, "tool call opened", chromedp.Poll[bool](
					`(function(){var d=document.querySelector("#messages details.tool");return d.open&&d.querySelectorAll("pre").length===2;})()`,
					chromedp.WithPollingTimeout(10*time.Second)))
			}
			if c.name == "hostile" {
				pwned := run(t, ctx, "pwned", chromedp.Evaluate[bool](`typeof window.__pwned !== "undefined"`))
				jsLinks := run(t, ctx, "links", chromedp.Evaluate[int](`document.querySelectorAll('a[href^="javascript:"], [onerror], [onload], script:not([nonce]):not([type])').length`))
				if pwned || jsLinks != 0 {
					t.Errorf("the hostile transcript's markup ran or was parsed: pwned=%v, %d live elements", pwned, jsLinks)
				}
				if n := run(t, ctx, "images", chromedp.Evaluate[int](`Array.from(document.querySelectorAll("#messages img")).filter(function(i){return i.complete&&i.naturalWidth>0;}).length`)); n != 1 {
					t.Errorf("%d inline images shown, want 1 (the PNG; the SVG refused)", n)
				}
				text := run(t, ctx, "text", chromedp.Evaluate[string](`document.querySelector("#m1 .text").textContent`))
				if !strings.Contains(text, "<script>window.__pwned=1</script>") {
					t.Errorf("the hostile text is not shown as text: %q", text)
				}
				run(t, ctx, "show all", chromedp.Click("#messages details.tool .showall"))
				full := run(t, ctx, "full output", chromedp.Evaluate[int](`document.querySelectorAll("#messages details.tool pre")[1].textContent.length`))
				if full < 400*len("long output line\n") {
					t.Errorf("show all left %d characters of the long output", full)
				}
				// The filter narrows the list to the one matching message.
				run(t, ctx, "filter", chromedp.Evaluate[bool](`(function(){var f=document.getElementById("filter");f.value="done after the compaction";return f.dispatchEvent(new Event("input"));})()`))
				run(t, ctx, "filtered", chromedp.Poll[bool](`document.querySelectorAll("#messages .msg").length===1`,
					chromedp.WithPollingTimeout(10*time.Second)))
			}
			shot := run(t, ctx, "screenshot", chromedp.FullScreenshot(100))
			checkScreenshot(t, shot, "view-"+c.name)
		})
	}
}

// TestRealBrowserServe logs in with the link serve prints, walks from the
// project list to a session's page and opens it, in headless Chromium.
func TestRealBrowserServe(t *testing.T) {
	ctx := newBrowser(t)
	tp := newTestProject(t, geminiFixture, codexFixture, kimiFixture, claudeFixture)
	ts := httptest.NewUnstartedServer(nil)
	srv, err := NewServer(ServerOptions{Token: testToken, Projects: []*Project{tp.p}, Addr: ts.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv
	ts.Start()
	defer ts.Close()

	run(t, ctx, "without the token", chromedp.Navigate(ts.URL+"/"))
	if body := run(t, ctx, "body", chromedp.Evaluate[string](`document.body.textContent`)); !strings.Contains(body, "401") {
		t.Errorf("the home page without the token says %.100q, want a 401", body)
	}
	run(t, ctx, "login", chromedp.Navigate(srv.LoginURL(ts.URL)))
	if loc := run(t, ctx, "location", chromedp.Location()); loc != ts.URL+"/" {
		t.Errorf("after login at %s, want the home page", loc)
	}
	if n := run(t, ctx, "projects", chromedp.Evaluate[int](`document.querySelectorAll("#projects tr.project").length`)); n != 1 {
		t.Fatalf("%d projects listed, want 1", n)
	}
	if c := run(t, ctx, "cookie", chromedp.Evaluate[string](`document.cookie`)); strings.Contains(c, testToken) {
		t.Errorf("the token cookie is readable from script")
	}
	shot := run(t, ctx, "home screenshot", chromedp.FullScreenshot(100))
	checkScreenshot(t, shot, "serve-home")
	run(t, ctx, "open the project", chromedp.Click("#projects tr.project a"))
	run(t, ctx, "entries", chromedp.WaitVisible("#entries"))
	es, err := tp.p.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if n := run(t, ctx, "rows", chromedp.Evaluate[int](`document.querySelectorAll("#entries tr.entry").length`)); n != len(es) {
		t.Errorf("%d rows, want %d (current, history, snapshot)", n, len(es))
	}
	shot = run(t, ctx, "project screenshot", chromedp.FullScreenshot(100))
	checkScreenshot(t, shot, "serve-project")
	for _, e := range es {
		st, _, err := tp.p.Load(e)
		if err != nil {
			t.Fatal(err)
		}
		run(t, ctx, "view "+e.Kind, chromedp.Navigate(ts.URL+ViewURL(e.Project, e.Kind, e.Name)))
		run(t, ctx, "messages", chromedp.WaitVisible("#messages .msg"))
		if n := run(t, ctx, "count", chromedp.Evaluate[int](`document.querySelectorAll("#messages .msg").length`)); n != len(st.Messages) {
			t.Errorf("%s %s (%s): %d messages shown, want %d", e.Kind, e.Name, st.Meta.Harness, n, len(st.Messages))
		}
		if h := run(t, ctx, "harness", chromedp.Evaluate[string](`document.querySelector(".harness").textContent`)); h != string(st.Meta.Harness) {
			t.Errorf("%s %s: harness %q shown, want %q", e.Kind, e.Name, h, st.Meta.Harness)
		}
	}
	shot = run(t, ctx, "view screenshot", chromedp.FullScreenshot(100))
	checkScreenshot(t, shot, "serve-view")
	resp, err := http.Get(ts.URL + "/api/checkpoints")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("API without the token: %d, want 401", resp.StatusCode)
	}
}
