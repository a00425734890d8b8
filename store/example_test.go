package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ben10ctx/ben10/store"
)

// A writer saves under the lock; when the lock is busy it leaves its data
// in a pending file, and the next lock holder merges it.
func Example() {
	base, _ := os.MkdirTemp("", "store-example-")
	defer os.RemoveAll(base)
	project := filepath.Join(base, "project")
	os.Mkdir(project, 0o755)

	s, err := store.Open(project, store.Options{Home: base, Session: "demo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	data := []byte("archive bytes")
	unlock, err := s.Lock(context.Background())
	if errors.Is(err, store.ErrLockTimeout) {
		s.WritePending("checkpoint", "demo", data)
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer unlock()
	pending, _ := s.TakePending()
	for _, p := range pending {
		// merge p, then:
		s.DonePending(p)
	}
	res, err := s.SaveCurrent(data, store.Meta{SessionID: "demo", Messages: 3}, store.SaveOptions{Rotate: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(res.Path), res.Meta.SizeBytes, "bytes")

	rec, err := s.Recover(func(string) error { return nil })
	fmt.Println(filepath.Base(rec.Path), rec.Kind, err)
	// Output:
	// current.ctx 13 bytes
	// current.ctx current <nil>
}

func ExampleSetConfigValue() {
	dir, _ := os.MkdirTemp("", "store-config-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.yaml")
	os.WriteFile(path, []byte("context:\n  max_storage_mb: 100 # team limit\n"), 0o600)

	if err := store.SetConfigValue(path, "max_storage_mb", "250"); err != nil {
		fmt.Println(err)
	}
	err := store.SetConfigValue(path, "default_restore_mode", "partial")
	fmt.Println(err)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// context.default_restore_mode: invalid value "partial" (allowed: full, summary, selective): not one of the allowed values
	// context:
	//   max_storage_mb: 250 # team limit
}
