package archive

import "golang.org/x/sys/unix"

// mmapFlags maps the prefix shared and populated at once (Linux only:
// one call faults the whole prefix in instead of a fault per page).
const mmapFlags = unix.MAP_SHARED | unix.MAP_POPULATE
