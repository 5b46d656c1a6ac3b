package pronet

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/source"
)

// Operations a vendor bills, the keys of Prices and of TRAWL_PRONET_PRICES.
const (
	OpSearch       = "search"
	OpProfilePosts = "profile_posts"
	OpCompanyPosts = "company_posts"
	OpPost         = "post"
	OpComments     = "comments"
	OpReactions    = "reactions"
	OpProfile      = "profile"
)

// Ops lists every billed operation.
func Ops() []string {
	return []string{OpSearch, OpProfilePosts, OpCompanyPosts, OpPost, OpComments, OpReactions, OpProfile}
}

// Price of one operation at a vendor: a fixed part per call plus a part per item answered.
type Price struct {
	PerCall source.Micros
	PerItem source.Micros
}

// Prices maps an operation (OpSearch, …) to its price; a missing operation costs nothing.
type Prices map[string]Price

// Cost is what one call of op answering items items costs.
func (p Prices) Cost(op string, items int) source.Micros {
	pr := p[op]
	return pr.PerCall + pr.PerItem*source.Micros(max(items, 0))
}

// ParsePrices reads TRAWL_PRONET_PRICES, "op=USD/call" or "op=USD/item" entries separated by
// commas ("search=0.002/item,profile=0.004/call"), over defaults. An operation the setting names
// is priced only by its entries (one /call and one /item at most); the others keep their
// defaults. An empty setting is the defaults.
func ParsePrices(s string, defaults Prices) (Prices, error) {
	out := maps.Clone(defaults)
	if out == nil {
		out = Prices{}
	}
	type seenKey struct{ op, unit string }
	seen := map[seenKey]bool{}
	named := map[string]bool{}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		op, rest, ok := strings.Cut(entry, "=")
		op = strings.TrimSpace(op)
		if !ok {
			return nil, fmt.Errorf("pronet prices: entry %q: want op=USD/call or op=USD/item", entry)
		}
		if !slices.Contains(Ops(), op) {
			return nil, fmt.Errorf("pronet prices: entry %q: unknown operation %q (want one of %s)", entry, op, strings.Join(Ops(), ", "))
		}
		amount, unit, ok := strings.Cut(strings.TrimSpace(rest), "/")
		unit = strings.TrimSpace(unit)
		if !ok || (unit != "call" && unit != "item") {
			return nil, fmt.Errorf("pronet prices: entry %q: the price must end in /call or /item", entry)
		}
		m, err := parseUSD(strings.TrimSpace(amount))
		if err != nil {
			return nil, fmt.Errorf("pronet prices: entry %q: %w", entry, err)
		}
		if seen[seenKey{op, unit}] {
			return nil, fmt.Errorf("pronet prices: entry %q: %s has two /%s prices", entry, op, unit)
		}
		seen[seenKey{op, unit}] = true
		if !named[op] {
			// The setting replaces the whole default price of an operation it names.
			named[op] = true
			out[op] = Price{}
		}
		pr := out[op]
		if unit == "call" {
			pr.PerCall = m
		} else {
			pr.PerItem = m
		}
		out[op] = pr
	}
	return out, nil
}

// maxUSD bounds one price so that a cost of many items cannot overflow.
const maxUSD = 1_000_000

// parseUSD reads a non-negative decimal dollar amount with at most six decimal places into
// micros, exactly (no floating point).
func parseUSD(s string) (source.Micros, error) {
	s = strings.TrimPrefix(s, "$")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return 0, fmt.Errorf("empty amount")
	}
	if !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("amount %q is not a decimal number of dollars", s)
	}
	if len(frac) > 6 {
		return 0, fmt.Errorf("amount %q has more than 6 decimal places", s)
	}
	var w int64
	if whole != "" {
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || n > maxUSD {
			return 0, fmt.Errorf("amount %q is over %d dollars", s, maxUSD)
		}
		w = n
	}
	f := int64(0)
	if frac != "" {
		n, _ := strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
		f = n
	}
	return source.Micros(w*1_000_000 + f), nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
