//go:build !unix

package hookfast

const (
	oNoFollow = 0
	oNonBlock = 0
)
