package mapping

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// A post's engagements are packed in one value (mapping_engagers, written
// by collection): EngagementSize bytes each, big-endian engaged_at then
// the person's id × 2 + 1 for a comment (EngagementKey), sorted.

// EngagementSize is the size of one engagement in a packed list.
const EngagementSize = 16

// Engagement is one engagement of a packed list: when, who, what.
type Engagement struct {
	At  int64 // engaged_at, ms
	Key int64 // EngagementKey
}

// EngagementKey is how a packed list names who engaged and how: the
// person's id × 2, plus 1 for a comment.
func EngagementKey(person int64, comment bool) int64 {
	if comment {
		return person*2 + 1
	}
	return person * 2
}

// PackEngagements packs es (sorting them).
func PackEngagements(es []Engagement) []byte {
	slices.SortFunc(es, func(a, b Engagement) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Key, b.Key))
	})
	out := make([]byte, 0, len(es)*EngagementSize)
	for _, e := range es {
		out = binary.BigEndian.AppendUint64(out, uint64(e.At))
		out = binary.BigEndian.AppendUint64(out, uint64(e.Key))
	}
	return out
}
