package sandbox

import (
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Microblog user ids encode the (lower-case) username in bijective base 38, so that
// GET /2/users/{id}/tweets finds the person without storing anything. Usernames of up to 12
// characters give ids of at most 19 digits, like X's.
const userAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz_-"

func encodeUserID(username string) string {
	n := new(big.Int)
	base := big.NewInt(int64(len(userAlphabet)))
	for i := 0; i < len(username); i++ {
		d := strings.IndexByte(userAlphabet, username[i])
		if d < 0 {
			d = strings.IndexByte(userAlphabet, '_')
		}
		n.Mul(n, base)
		n.Add(n, big.NewInt(int64(d+1)))
	}
	return n.String()
}

// decodeUserID inverts encodeUserID; ok is false for ids that are not a positive decimal.
func decodeUserID(id string) (string, bool) {
	if id == "" || len(id) > 128 || id[0] == '0' {
		return "", false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return "", false
		}
	}
	n, ok := new(big.Int).SetString(id, 10)
	if !ok || n.Sign() <= 0 {
		return "", false
	}
	base := big.NewInt(int64(len(userAlphabet)))
	var out []byte
	one := big.NewInt(1)
	m := new(big.Int)
	for n.Sign() > 0 {
		n.Sub(n, one)
		n.DivMod(n, base, m)
		out = append(out, userAlphabet[m.Int64()])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out), true
}

// Post ids are snowflakes: milliseconds since the platform's epoch in the high bits, so they
// increase with time and since_id watermarks work. Each platform has its own epoch, and the
// sandbox mints and reads ids with the one of the platform they belong to:
//
//   - microblog (tweet) ids count from X's epoch (2010-11-04T01:42:54.657Z);
//   - pronet ids (activity urns of posts, comment ids) count from the Unix epoch, as the real
//     network's do: 7263450183458918400 >> 22 is 1731741472115, 2024-11-16T07:17:52.115Z.
//
// The low 22 bits say which stream the post belongs to and where (see stream kinds below); they
// mean the same on both platforms.
type idScheme struct {
	epochMS int64 // Unix milliseconds of the scheme's time zero
}

var (
	tweetIDs  = idScheme{epochMS: 1288834974657}
	pronetIDs = idScheme{epochMS: 0}
)

const lowBits = 22

// Stream kinds in bits 20-21 of a post id.
const (
	streamPublic  = 0 // the public stream: payload is the index within its hour bucket
	streamRoster  = 1 // a roster person's own posts: payload is roster index and sequence
	streamCompany = 2 // a roster company page: payload is company index and sequence
	streamOther   = 3 // a person or company outside the roster: payload is a hash of its key
)

// mint is the id of something created at t (not before the epoch) in a stream.
func (s idScheme) mint(t time.Time, kind int, payload uint64) uint64 {
	ms := uint64(t.UnixMilli() - s.epochMS)
	return ms<<lowBits | uint64(kind)<<20 | payload&0xfffff
}

// timeOf is the creation time encoded in an id.
func (s idScheme) timeOf(id uint64) time.Time {
	return time.UnixMilli(int64(id>>lowBits) + s.epochMS).UTC()
}

// atTime is the smallest id that a post created at t can have.
func (s idScheme) atTime(t time.Time) uint64 {
	ms := t.UnixMilli() - s.epochMS
	if ms < 0 {
		return 0
	}
	return uint64(ms) << lowBits
}

// parse parses a decimal id of at most 19 digits; ids of the epoch's first millisecond (their
// time bits are all zero) are malformed. Whether the id is in the future is the caller's call.
func (s idScheme) parse(str string) (uint64, bool) {
	if str == "" || len(str) > 19 {
		return 0, false
	}
	v, err := strconv.ParseUint(str, 10, 64)
	if err != nil || v>>lowBits == 0 {
		return 0, false
	}
	return v, true
}

func idKind(id uint64) int { return int(id>>20) & 3 }

func idPayload(id uint64) uint64 { return id & 0xfffff }

func idString(id uint64) string { return strconv.FormatUint(id, 10) }
