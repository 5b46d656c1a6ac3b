package topic

// SplitCost shares micros between n topics evenly, as their credits are
// shared (split_evenly): the first micros%n shares take one more, so that
// the shares sum to micros exactly.
func SplitCost(micros int64, n int) []int64 {
	if n <= 0 {
		return nil
	}
	out := make([]int64, n)
	each, rest := micros/int64(n), micros%int64(n)
	for i := range out {
		out[i] = each
		if int64(i) < rest {
			out[i]++
		}
	}
	return out
}
