package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is a process's CPU time so far: the sum of its threads'
// /proc/<pid>/task/*/schedstat (ns), else utime+stime of /proc/<pid>/stat
// (clock ticks, assumed 100 Hz).
func cpuTime(pid int) (time.Duration, error) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	n := 0
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				sum += time.Duration(ns)
				n++
			}
		}
	}
	if n > 0 {
		return sum, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// noopBinary builds a Go program that only waits for a signal: the
// baseline a resident Go process costs (runtime timers, GC).
func noopBinary(b *testing.B) string {
	dir := b.TempDir()
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte("package main\nimport (\"os\"; \"os/signal\")\nfunc main() { c := make(chan os.Signal, 1); signal.Notify(c); <-c }\n"), 0o600)
	bin := filepath.Join(dir, "noop")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	return bin
}

// BenchmarkWatchIdleCPU measures the CPU time ben10 watch uses per second
// while 100 active sessions (25 per assistant) do not change, at the
// default 10 s poll, against a no-op Go process. One iteration is one
// second of wall time: run with -benchtime=30x.
func BenchmarkWatchIdleCPU(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("needs /proc")
	}
	home, project := b.TempDir(), b.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	for k := 0; k < 25; k++ {
		for _, s := range newFakeSessions(b, home, project, 100+k) {
			s.turn(b, 30)
		}
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"noop", nil},
		{"watch-fsnotify", []string{"watch"}},
		{"watch-polling", []string{"watch", "--no-notify"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			bin := ben10Bin
			if c.args == nil {
				bin = noopBinary(b)
			}
			cmd := exec.Command(bin, c.args...)
			cmd.Env = cleanEnv(home)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
			// Let the first scan and evaluation of every session finish.
			time.Sleep(2 * time.Second)
			before, err := cpuTime(cmd.Process.Pid)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				time.Sleep(time.Second)
			}
			wall := time.Since(start)
			after, _ := cpuTime(cmd.Process.Pid)
			b.StopTimer()
			b.ReportMetric(float64(after-before)/float64(time.Millisecond)/wall.Seconds(), "cpu-ms/s")
			b.ReportMetric(float64(after-before)*100/float64(wall), "%cpu")
		})
	}
}

// BenchmarkWatchThresholdToSnapshot measures the time from the write that
// takes a session over its export threshold to the verified snapshot in
// the project's index, with file notifications and with 1 s polling only.
func BenchmarkWatchThresholdToSnapshot(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"fsnotify", []string{"watch"}},
		{"poll-1s", []string{"watch", "--no-notify", "--poll-interval", "1s"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			home, project := b.TempDir(), b.TempDir()
			project, _ = filepath.EvalSymlinks(project)
			var sessions []*fakeSession
			for i := 0; i < b.N; i++ {
				s := newFakeSessions(b, home, project, 1000+i)[0] // claude
				s.turn(b, 20)
				sessions = append(sessions, s)
			}
			cmd := exec.Command(ben10Bin, c.args...)
			cmd.Env = cleanEnv(home)
			var log syncBuf
			cmd.Stderr = &log
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() {
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
				if b.Failed() {
					b.Logf("watcher log:\n%s", log.String())
				}
			}()
			state := filepath.Join(home, ".claude-code", "watch-state.json")
			waitFor(b, 20*time.Second, "the first scan", func() (bool, string) {
				st, err := readWatchState(state)
				return err == nil && len(st.LLMs["claude"].Sessions) == b.N, "not yet"
			})
			index := filepath.Join(project, ".claude", "context", "compaction-snapshots", "index.json")
			b.ResetTimer()
			for _, s := range sessions {
				s.turn(b, 80)
				// Retention may prune older snapshots: look for this one.
				waitFor(b, 20*time.Second, "the snapshot", func() (bool, string) {
					data, _ := os.ReadFile(index)
					return bytes.Contains(data, []byte(`"session_id": "`+s.id+`"`)) || bytes.Contains(data, []byte(`"session_id":"`+s.id+`"`)), "not yet"
				})
			}
		})
	}
}
