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

// Post ids (tweet ids and pronet post urns) are snowflake-like: milliseconds since the X epoch
// in the high bits, so they increase with time and since_id watermarks work. The low 22 bits
// say which stream the post belongs to and where (see stream kinds below).
const (
	snowEpochMS = 1288834974657
	lowBits     = 22
)

// Stream kinds in bits 20-21 of a post id.
const (
	streamPublic  = 0 // the public stream: payload is the index within its hour bucket
	streamRoster  = 1 // a roster person's own posts: payload is roster index and sequence
	streamCompany = 2 // a roster company page: payload is company index and sequence
	streamOther   = 3 // a person or company outside the roster: payload is a hash of its key
)

func makeID(t time.Time, kind int, payload uint64) uint64 {
	ms := uint64(t.UnixMilli() - snowEpochMS)
	return ms<<lowBits | uint64(kind)<<20 | payload&0xfffff
}

// idTime is the creation time encoded in a post id.
func idTime(id uint64) time.Time {
	return time.UnixMilli(int64(id>>lowBits) + snowEpochMS).UTC()
}

func idKind(id uint64) int { return int(id>>20) & 3 }

func idPayload(id uint64) uint64 { return id & 0xfffff }

// parseID parses a decimal post id; ids before the epoch or absurdly far ahead are malformed.
func parseID(s string) (uint64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v>>lowBits == 0 {
		return 0, false
	}
	return v, true
}

func idString(id uint64) string { return strconv.FormatUint(id, 10) }

// idAtTime is the smallest id that a post created at t can have.
func idAtTime(t time.Time) uint64 {
	ms := t.UnixMilli() - snowEpochMS
	if ms < 0 {
		return 0
	}
	return uint64(ms) << lowBits
}
