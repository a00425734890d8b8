// Package index is Ben10's recall index: one SQLite database per user that
// holds the searchable text of every archive Ben10 keeps, across projects and
// assistants, so that a search answers in milliseconds instead of
// decompressing every archive.
//
// # File
//
// The database is ~/.claude-code/index.db (DefaultPath), created 0600 in a
// 0700 directory, opened through the pure-Go driver modernc.org/sqlite in WAL
// mode with a busy timeout: any number of readers and writers may use it at
// once (SQLite's own locking serializes the writers; a writer that waits
// longer than the timeout fails with an error, the database stays intact).
// A database that SQLite reports as damaged or not a database at all is moved
// aside (index.db.corrupt-<unix time>) and built again from the archives.
//
// # What is indexed
//
// Every .ctx archive in the stores of the projects the index knows (the
// stores recorded in the index, the fallback stores under
// ~/.claude-code/contexts/, the projects noted in the notes file, and any
// project passed to Update): current.ctx, checkpoints, history and
// compaction snapshots; and the archives pulled from team remotes into
// the pull area (PullArea), each hit marked with its source
// ("remote:<remote>/<project key>"). Pulled archives were authenticated
// with the team key and rebuilt, redacted, by this user's Ben10 when
// pulled. An archive is one row of the
// archives table, identified by its path and the SHA-256 of its bytes; a file
// whose size and modification time are unchanged is not read again, a file
// whose bytes changed is indexed again, and a file that is gone (pruned,
// rotated, deleted) leaves the index at the next Update. Rebuild empties the
// index and runs Update: the result equals the incremental one (a test checks
// it).
//
// A text is stored once however many archives hold it: the current
// context, the checkpoints, the history and the snapshots of one session
// repeat most of their text, and the index keeps one full-text row per
// distinct text (by kind and content) with one small row per occurrence.
//
// From each archive, in transcript order: user and assistant text, compaction
// summaries, shell commands, tool outputs (cut to OutputBudget, base64 and
// binary blobs left out), failed tool outputs as errors, the paths each tool
// touched and the todo list. Each row carries its kind, role, time and
// position in the archive, so a hit can be opened (Show) with the rows around
// it. The archives are redacted when written, so everything indexed is
// already redacted.
//
// Encrypted archives are not indexed: their text never lands in the
// plaintext index. They are counted (Stats.Encrypted) and listed by Status.
// An archive that cannot be read (corrupt, truncated, from a newer Ben10) is
// skipped and counted too, and retried when its bytes change.
//
// # Trust
//
// Everything in a project directory is untrusted: a cloned repository can
// bring archives in its store. Each indexed archive records its trust: it
// authenticates under the user's key (TrustUser, archive.Archive.Authenticate),
// it is pulled team content (TrustTeam: in the pull area, or written into
// a store by `remote pull`, which notes its SHA-256 with NotePulled), or it
// is not trusted and why (TrustNoTag, TrustOtherKey, TrustBadTag,
// TrustNoKey). Search and Sessions leave untrusted archives out and count
// them (Withheld); Query.Unauthenticated and ShowAny serve them, marked,
// for a user who asks. When the user's key changes, every archive is read
// again. Status counts archives by trust, Verify lists the untrusted ones.
//
// # Matching
//
// The text is in an FTS5 table with the trigram tokenizer, so paths,
// identifiers and flags match as substrings ("foo_bar.go", "--count",
// "handleReq"), case-insensitively; hits are ranked with bm25, ties broken by
// recency. Each query term needs at least three characters.
//
// # Updates
//
// Nothing indexes in a hook's synchronous path. Every save path (the
// hooks' background worker, the watcher, `context save`, `compaction
// snapshot`, `remote pull`) calls internal/indexnotes.Append once its
// archive is on disk: one line appended to ~/.claude-code/index-notes (0600,
// never through a symbolic link), no database, so that the save paths and
// hooks do not link it; the project is remembered from then on. Every
// Update takes the notes first and indexes the noted projects' stores: the
// background worker (`ben10 internal work`) when its jobs are done, `ben10
// index update`, and `ben10 search` and the MCP search tool, which catch up
// before they answer (cheap when nothing changed: a stat per archive).
// Notes an interrupted Update took are taken again by the next one.
package index
