//go:build !linux

package claude

// prefault is a no-op outside Linux (see prefault_linux.go).
func prefault([]byte) {}
