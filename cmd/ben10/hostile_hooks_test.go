package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hostile"
)

// hostileHookLimit is the memory a hook may take on any hostile archive
// (issue: "every hook event … under a 512 MiB memory limit").
const hostileHookLimit = 512 << 20

// TestRealHostileArchivesEveryHook puts each archive of the hostile corpus
// (internal/hostile) where a repository could commit it — the project's
// current.ctx and a checkpoint numbered past every real one — and runs
// every hook event of a session through the real binary: each exits 0
// with at most one line on stderr, never prints a partial or injected
// result from the hostile archive, and no process of the hook (the
// supervisor and its worker) has more than 512 MiB resident. Every
// archive in make test-long (150 hook runs); make test (-short) takes
// three: a metadata count bomb, a segment count bomb and the largest
// valid archive (the one that takes the most memory).
func TestHostileArchivesEveryHook(t *testing.T) {
	t.Parallel()
	var names []string
	for _, c := range hostile.Cases() {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	if testing.Short() {
		names = []string{"meta-raw-count", "conversation-nil-array", "raw-zstd-bomb"}
	}
	tr, err := os.ReadFile(fixtureTranscript(t))
	if err != nil {
		t.Fatal(err)
	}
	events := []struct {
		event  string
		fields map[string]any
	}{
		{"SessionStart", map[string]any{"source": "startup"}},
		{"UserPromptSubmit", map[string]any{"prompt": "next step"}},
		{"PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_response": map[string]any{"stdout": "ok"}}},
		{"PreCompact", map[string]any{"trigger": "auto"}},
		{"SessionStart", map[string]any{"source": "compact"}},
		{"SessionEnd", map[string]any{"reason": "other"}},
	}
	var worst int64
	worstAt := ""
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			arch, err := hostile.SharedPath(name)
			if err != nil {
				t.Fatal(err)
			}
			w := newHookWorld(t, "5e1f0c2a-8b3d-4e6f-9a7b-00000000000a")
			w.writeTranscript(tr)
			store := w.contextDir()
			for _, dst := range []string{filepath.Join(store, "current.ctx"), filepath.Join(store, "checkpoints", "cp-999.ctx")} {
				if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := copySparse(arch, dst); err != nil {
					t.Fatal(err)
				}
			}
			for _, ev := range events {
				in := map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": ev.event}
				for k, v := range ev.fields {
					in[k] = v
				}
				data, _ := json.Marshal(in)
				cmd := exec.Command(ben10Bin, "hook", hook.Event(ev.event).Kebab())
				// Recompression inside the hook: no detached worker may
				// outlive the test (and the hostile store is read once more).
				cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "BEN10_HOOK_RECOMPRESS=sync"), w.env...)
				cmd.Stdin = bytes.NewReader(data)
				var so, se bytes.Buffer
				cmd.Stdout, cmd.Stderr = &so, &se
				err := cmd.Run()
				if err != nil {
					t.Errorf("%s: %v (stderr %q)", ev.event, err, se.String())
					continue
				}
				if n := strings.Count(se.String(), "\n"); n > 1 {
					t.Errorf("%s: %d stderr lines: %q", ev.event, n, se.String())
				}
				if so.Len() > 0 && !json.Valid(so.Bytes()) {
					t.Errorf("%s: stdout is not JSON: %.200q", ev.event, so.String())
				}
				// ru_maxrss of a waited child covers its own waited
				// children: the supervisor and the worker it ran.
				if rss, ok := maxRSS(cmd.ProcessState); ok {
					if rss > hostileHookLimit {
						t.Errorf("%s: %d MiB resident (limit %d MiB)", ev.event, rss>>20, hostileHookLimit>>20)
					}
					if rss > worst {
						worst, worstAt = rss, name+" "+ev.event
					}
				}
			}
		})
	}
	t.Logf("largest resident size of a hook over the hostile corpus: %d MiB (%s)", worst>>20, worstAt)
}

// copySparse copies src to dst keeping holes: the hostile corpus has
// sparse files of more than a GiB.
func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	zero := make([]byte, len(buf))
	var off int64
	for {
		n, rerr := in.Read(buf)
		if n > 0 {
			if !bytes.Equal(buf[:n], zero[:n]) {
				if _, err := out.WriteAt(buf[:n], off); err != nil {
					out.Close()
					return err
				}
			}
			off += int64(n)
		}
		if rerr != nil {
			break
		}
	}
	if err := out.Truncate(fi.Size()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
