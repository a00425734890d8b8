package hooknote

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

type systemProcesses struct{}

func (systemProcesses) Session() (ProcessID, bool) {
	pid := os.Getppid()
	for i := 0; i < maxAncestors && pid > 1; i++ {
		st, ok := readStat(pid)
		if !ok {
			return ProcessID{}, false
		}
		if !helperNames[st.comm] {
			return ProcessID{PID: pid, Start: st.start}, true
		}
		pid = st.ppid
	}
	return ProcessID{}, false
}

func (systemProcesses) Running(p ProcessID) (running, known bool) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false, false // no /proc mounted: cannot tell
	}
	st, ok := readStat(p.PID)
	if !ok {
		return false, true
	}
	return st.start == p.Start && st.state != "Z" && st.state != "X", true
}

type procStat struct {
	comm  string
	state string
	ppid  int
	start int64
}

// readStat parses /proc/PID/stat: "pid (comm) state ppid … starttime …",
// where comm may hold spaces and parentheses (the last ')' ends it) and
// starttime is the 22nd field.
func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 20 { // state is field 3, starttime field 22
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseInt(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{comm: string(data[open+1 : end]), state: f[0], ppid: ppid, start: start}, true
}
