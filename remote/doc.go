// Package remote shares a project's saved contexts through S3-compatible
// object storage (Amazon S3, MinIO, R2), encrypted and authenticated on
// the client with a team key the bucket never sees.
//
// # Model
//
// A Remote is a bucket and prefix (Config, ~/.claude-code/remotes.yaml;
// no credentials: Dial takes them from the AWS environment variables or
// ~/.aws/credentials). Client.Push uploads, for each archive of a store,
// the redacted raw transcript with home directory and user name stripped,
// as content-defined chunks (Chunker) named by a keyed hash and encrypted
// deterministically (Key.SealChunk), so equal chunks deduplicate across
// snapshots and teammates; a transcript that grew reuses the chunks of
// its previous version for the unchanged prefix. One new manifest object
// per push lists the entries it adds; readers merge every manifest, so
// concurrent pushes lose nothing. Client.Pull authenticates every byte and
// rebuilds the archives into the local store; an object that fails is
// reported by name (ErrCorrupt) and the pull goes on. Client.Prune deletes
// only chunks no manifest references.
//
// # Hostile input
//
// Everything read from the bucket is untrusted: sizes are capped before
// allocation, manifests are validated (relative file names without "..",
// chunk sizes that add up), and a wrong team key is ErrWrongKey before
// any object is read. docs/REMOTE.md specifies the objects and the
// choices.
package remote
