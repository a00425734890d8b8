package store

import "testing"

// FormatBytes prints powers of 1024 with their binary units: the CLI, MCP
// and web UI once printed "KB"/"MB" for them.
func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{1<<20 - 1, "1024.0 KiB"},
		{1 << 20, "1.0 MiB"},
		{100 << 20, "100.0 MiB"},
		{1 << 30, "1.0 GiB"},
		{5<<30 + 1<<29, "5.5 GiB"},
	} {
		if got := FormatBytes(tc.n); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
