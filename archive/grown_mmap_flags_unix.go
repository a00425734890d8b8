//go:build unix && !linux

package archive

import "golang.org/x/sys/unix"

// mmapFlags maps the prefix shared; MAP_POPULATE is Linux's, the other
// systems fault the pages in as the digests and the scan read them.
const mmapFlags = unix.MAP_SHARED
