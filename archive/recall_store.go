package archive

import "fmt"

// recallPayload is the one place the recall (see BuildRecall) is made for
// the summaries segment: built from the full State at encode time, so
// that Digest on a large archive reads one small segment.
func recallPayload(s *State) ([]byte, error) {
	b, err := marshal(BuildRecall(s))
	if err != nil {
		return nil, fmt.Errorf("archive: encoding recall: %w", err)
	}
	return b, nil
}
