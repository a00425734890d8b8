//go:build unix

package store

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrashSafety kills a saving process with SIGKILL at random moments,
// 200 times, and checks after each kill that the store opens to the
// previous or the new state, never a damaged one.
func TestCrashSafety(t *testing.T) {
	kills := 200
	if testing.Short() {
		kills = 40 // make test-long kills it 200 times
	}
	e := newEnv(t)
	e.open(t, Options{}) // create the store
	rng := rand.New(rand.NewPCG(1, 2))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	state := -1 // index of the state on disk; -1: nothing saved yet
	next := 0
	var midSave, openedNew, openedPrev, rotations int
	for k := 0; k < kills; k++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = childCommandEnv("saver", "STORE_PROJECT="+e.project, "STORE_HOME="+e.home,
			"STORE_START="+strconv.Itoa(next), "STORE_ROTATE=4")
		var out bytes.Buffer
		cmd.Stdout = &out
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(2+rng.IntN(40)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %d: child was not killed: %v; stderr: %s", k, err, stderr.String())
		}
		lastB, lastD := -1, -1
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 {
				continue
			}
			n, _ := strconv.Atoi(f[1])
			switch f[0] {
			case "B":
				lastB = n
			case "D":
				lastD = n
			}
		}
		done := state
		if lastD >= 0 {
			done = lastD
		}
		inProgress := -2
		if lastB > lastD {
			inProgress = lastB
			midSave++
		}

		s := e.open(t, Options{})
		rec, err := s.Recover(verifyFunc)
		path, kind := rec.Path, rec.Kind
		if done < 0 && inProgress < 0 {
			if err == nil {
				t.Fatalf("kill %d: nothing was saved, yet %s (%s) was found", k, path, kind)
			}
			continue
		}
		if err != nil && done >= 0 {
			t.Fatalf("kill %d: no valid context after saving state %d: %v", k, done, err)
		}
		got := -1
		if err == nil {
			got, err = verifyPayload(path)
			if err != nil {
				t.Fatalf("kill %d: Recover returned a damaged file: %v", k, err)
			}
		}
		switch got {
		case done:
			openedPrev++
		case inProgress:
			openedNew++
		default:
			t.Fatalf("kill %d: store opened to state %d (%s %s); want %d (last completed) or %d (in progress)",
				k, got, kind, path, done, inProgress)
		}
		if ents, _ := os.ReadDir(s.CorruptDir()); len(ents) > 0 {
			t.Fatalf("kill %d: a file was found damaged and quarantined: %s", k, ents[0].Name())
		}
		hs, err := s.History()
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if _, err := verifyPayload(h.Path); err != nil {
				t.Fatalf("kill %d: history damaged: %v", k, err)
			}
		}
		rotations = len(hs)
		state = got
		next = max(lastB, lastD, state) + 1
	}
	tmp, _ := filepath.Glob(filepath.Join(e.project, ".claude", "context", TempPrefix+"*"))
	t.Logf("%d kills: %d during a save; opened to the previous state %d times, to the new state %d times; %d history files; %d temporary files left for the sweep; last state %d",
		kills, midSave, openedPrev, openedNew, rotations, len(tmp), state)
	if midSave == 0 {
		t.Fatalf("no kill landed during a save; the test exercised nothing")
	}
	// A later Open sweeps the leftovers once they are old enough.
	old := time.Now().Add(-2 * SweepAge)
	for _, p := range tmp {
		os.Chtimes(p, old, old)
	}
	e.open(t, Options{})
	if left, _ := filepath.Glob(filepath.Join(e.project, ".claude", "context", TempPrefix+"*")); len(left) != 0 {
		t.Fatalf("sweep left %d old temporary files", len(left))
	}
}
