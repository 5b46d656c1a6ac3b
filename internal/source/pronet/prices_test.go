package pronet_test

import (
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

var defaultPrices = pronet.Prices{
	pronet.OpSearch:  {PerItem: 2000},
	pronet.OpProfile: {PerCall: 4000},
}

func TestParsePrices(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want pronet.Prices
	}{
		{"empty keeps defaults", "", defaultPrices},
		{"override per item", "search=0.003/item", pronet.Prices{pronet.OpSearch: {PerItem: 3000}, pronet.OpProfile: {PerCall: 4000}}},
		{"call replaces the default item price", "search=0.01/call", pronet.Prices{pronet.OpSearch: {PerCall: 10000}, pronet.OpProfile: {PerCall: 4000}}},
		{"both parts, spaces, dollar sign", " comments = $0.5/call , comments=0.000001/item ,",
			pronet.Prices{pronet.OpSearch: {PerItem: 2000}, pronet.OpProfile: {PerCall: 4000}, pronet.OpComments: {PerCall: 500000, PerItem: 1}}},
		{"whole dollars and leading dot", "post=2/call,reactions=.25/item",
			pronet.Prices{pronet.OpSearch: {PerItem: 2000}, pronet.OpProfile: {PerCall: 4000}, pronet.OpPost: {PerCall: 2_000_000}, pronet.OpReactions: {PerItem: 250000}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pronet.ParsePrices(tc.in, defaultPrices)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for op, p := range tc.want {
				if got[op] != p {
					t.Errorf("%s = %+v, want %+v", op, got[op], p)
				}
			}
		})
	}
	if defaultPrices[pronet.OpSearch].PerItem != 2000 {
		t.Error("ParsePrices changed its defaults")
	}
}

func TestParsePricesErrors(t *testing.T) {
	cases := []struct{ in, mention string }{
		{"search", `"search"`},
		{"likes=0.1/call", `unknown operation "likes"`},
		{"search=0.1", "/call or /item"},
		{"search=0.1/page", "/call or /item"},
		{"search=abc/item", `"abc"`},
		{"search=-1/item", `"-1"`},
		{"search=0.0000001/item", "6 decimal places"},
		{"search=/item", "empty amount"},
		{"search=1e3/item", `"1e3"`},
		{"search=99999999/call", "over"},
		{"search=0.1/item,search=0.2/item", "two /item"},
	}
	for _, tc := range cases {
		_, err := pronet.ParsePrices(tc.in, defaultPrices)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParsePrices(%q) = %v, want an error mentioning %s", tc.in, err, tc.mention)
		}
	}
}

func TestPricesCost(t *testing.T) {
	p := pronet.Prices{pronet.OpComments: {PerCall: 100, PerItem: 2000}}
	for _, tc := range []struct {
		op    string
		items int
		want  source.Micros
	}{{pronet.OpComments, 0, 100}, {pronet.OpComments, 10, 20100}, {pronet.OpComments, -1, 100}, {pronet.OpSearch, 10, 0}} {
		if got := p.Cost(tc.op, tc.items); got != tc.want {
			t.Errorf("Cost(%s, %d) = %d, want %d", tc.op, tc.items, got, tc.want)
		}
	}
	if got := pronet.Prices(nil).Cost(pronet.OpPost, 1); got != 0 {
		t.Errorf("nil prices cost %d", got)
	}
}

func FuzzParsePrices(f *testing.F) {
	for _, s := range []string{"", "search=0.002/item,profile=0.004/call", "post=1/call", "x=1", "search=.5/item,search=1/call", "search=1.0000001/item"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := pronet.ParsePrices(s, defaultPrices)
		if err != nil {
			if got != nil {
				t.Fatalf("error %v with prices %v", err, got)
			}
			return
		}
		for op, p := range got {
			if p.PerCall < 0 || p.PerItem < 0 || p.PerCall > 1_000_000_000_000 || p.PerItem > 1_000_000_000_000 {
				t.Fatalf("%s = %+v out of range", op, p)
			}
		}
	})
}
