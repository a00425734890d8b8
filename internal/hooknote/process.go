package hooknote

// ProcessID identifies a running process across PID reuse: its PID and
// its start time in the platform's unit (clock ticks since boot on Linux).
type ProcessID struct {
	PID   int
	Start int64
}

// Processes tells which assistant process a hook runs under and whether
// the process of an earlier session is still running. SessionStart uses it
// to tell a session that crashed (its process is gone, no SessionEnd came)
// from one still running in another terminal.
type Processes interface {
	// Session is the assistant process this hook runs under: the nearest
	// ancestor that is neither a shell nor Ben10 itself. ok is false
	// when it cannot be told.
	Session() (p ProcessID, ok bool)
	// Running reports whether p still runs; known is false when that
	// cannot be told.
	Running(p ProcessID) (running, known bool)
}

// SystemProcesses is the Processes of this machine: read from /proc on
// Linux; elsewhere nothing is known, and SessionStart falls back to the
// time since the session's last hook event.
var SystemProcesses Processes = systemProcesses{}

// helperNames are the processes between the assistant and the hook: the
// shell that runs a hook command and Ben10's own binaries.
var helperNames = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "busybox": true,
	"ben10": true, "ben10-hook": true,
}

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 8

// ProcessesOrSystem is Env.Processes, or SystemProcesses when it is nil.
func (e *Env) ProcessesOrSystem() Processes {
	if e.Processes != nil {
		return e.Processes
	}
	return SystemProcesses
}

// recordProcess notes the assistant process of the session in ss.
func (c *Call) recordProcess(ss *SessionState) {
	p, ok := c.Env.ProcessesOrSystem().Session()
	if !ok {
		return
	}
	ss.PID, ss.PIDStart = p.PID, p.Start
}
