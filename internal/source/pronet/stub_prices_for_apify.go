package pronet

// Stub of internal/source/pronet/prices.go so that the apify branch compiles on its own; the
// integrator deletes this file at merge and keeps the real one.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/source"
)

// Price of one operation at a vendor.
type Price struct {
	PerCall source.Micros
	PerItem source.Micros
}

// Prices by operation (search, profile_posts, company_posts, post, comments, reactions, profile).
type Prices map[string]Price

// Cost of one call of op that returned items.
func (p Prices) Cost(op string, items int) source.Micros {
	pr := p[op]
	return pr.PerCall + pr.PerItem*source.Micros(items)
}

// ParsePrices reads "op=USD/call|/item,…" over defaults.
func ParsePrices(s string, defaults Prices) (Prices, error) {
	out := Prices{}
	for op, pr := range defaults {
		out[op] = pr
	}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		op, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("pronet: price %q: want op=USD/call or op=USD/item", part)
		}
		amount, unit, _ := strings.Cut(v, "/")
		f, err := strconv.ParseFloat(amount, 64)
		if err != nil {
			return nil, fmt.Errorf("pronet: price %q: %w", part, err)
		}
		m := source.Micros(f*1e6 + 0.5)
		pr := out[op]
		if unit == "item" {
			pr.PerItem = m
		} else {
			pr.PerCall = m
		}
		out[op] = pr
	}
	return out, nil
}
