// Package snapshot manages pre-compaction snapshots: creation, the index,
// retention and pinning, diff, restore, extract and search.
package snapshot
