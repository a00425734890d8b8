//go:build !linux

package hooknote

type systemProcesses struct{}

func (systemProcesses) Session() (ProcessID, bool) { return ProcessID{}, false }

func (systemProcesses) Running(ProcessID) (running, known bool) { return false, false }
