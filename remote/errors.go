package remote

import "errors"

// Sentinel errors; the errors returned wrap one of them with the name of
// the remote, object or file concerned.
var (
	// ErrCorrupt: an object fails authentication, is truncated, or its
	// content does not match its name.
	ErrCorrupt = errors.New("remote: corrupt object")
	// ErrWrongKey: the bucket's data was written under another team key.
	ErrWrongKey = errors.New("remote: wrong team key")
	// ErrNoKey: no team key is installed for the remote.
	ErrNoKey = errors.New("remote: no team key")
	// ErrBadKey: a team key's text form is malformed.
	ErrBadKey = errors.New("remote: malformed team key")
	// ErrKeyExists: a team key is already installed.
	ErrKeyExists = errors.New("remote: a team key already exists")
	// ErrNoRemote: no remote of that name is configured.
	ErrNoRemote = errors.New("remote: no such remote")
	// ErrBadURL: a remote URL is not s3://BUCKET[/PREFIX].
	ErrBadURL = errors.New("remote: bad remote URL")
)
