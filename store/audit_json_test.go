package store

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestAuditEntryEncodingMatchesJSON: appendAuditEntry is json.Marshal
// byte for byte, on random entries whose strings exercise the escaping
// rules (HTML characters, control characters, invalid UTF-8, U+2028).
func TestAuditEntryEncodingMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"", "a", "/home/u/p", "<", ">", "&", `"`, `\`, "\n", "\t", "\x00", "\x1f", "é", "😀", "\u2028", "\u2029", "\xff", "\xed\xa0\x80"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	num := func() int64 {
		switch r.IntN(3) {
		case 0:
			return 0
		case 1:
			return r.Int64N(1000) - 500
		}
		return int64(r.Uint64())
	}
	times := []time.Time{{}, time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), time.Unix(1e9, 123456789).In(time.FixedZone("", 5*3600+1800)), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := range 5000 {
		e := AuditEntry{
			Timestamp: times[r.IntN(len(times))], Action: str(), Directory: str(), SizeBytes: num(), Messages: int(num()),
			ExportPath: str(), RedactionsApplied: int(num()), SnapshotID: str(), Path: str(), Count: int(num()), Session: str(), Detail: str(),
		}
		got, gerr := appendAuditEntry(nil, &e)
		want, werr := json.Marshal(e)
		if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("case %d: %+v:\n got  %s, %v\n want %s, %v", i, e, got, gerr, want, werr)
		}
	}
}
