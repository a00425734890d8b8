// Package watch is the watcher daemon that preserves sessions of assistants
// without hooks (and backs up those with them).
package watch
