package action

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNotionValue(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		in   any
		want string // %v of the converted value, or "error"
	}{
		{"number", "42.5", "42.5"},
		{"number", 7.0, "7"},
		{"number", "many", "error"},
		{"number", "", "<nil>"},
		{"select", "Won, big", "map[name:Won  big]"},
		{"multi_select", "vip, partner,", "[map[name:vip] map[name:partner]]"},
		{"multi_select", []any{"a", "b"}, "[map[name:a] map[name:b]]"},
		{"checkbox", "Yes", "true"},
		{"checkbox", "", "false"},
		{"checkbox", "maybe", "error"},
		{"date", "2026-11-20", "map[start:2026-11-20]"},
		{"date", "2026-11-20T09:00:00Z", "map[start:2026-11-20T09:00:00Z]"},
		{"date", "20 Nov", "error"},
		{"email", " a@b.c ", "a@b.c"},
		{"people", "x", "error"},
		{"title", nil, "[]"},
	} {
		got, err := notionValue(tc.typ, tc.in)
		s := "error"
		if err == nil {
			s = fmt.Sprint(got)
		}
		if s != tc.want {
			t.Errorf("notionValue(%s, %#v) = %s (%v), want %s", tc.typ, tc.in, s, err, tc.want)
		}
	}
}

func TestNotionRichTextSplits(t *testing.T) {
	text := strings.Repeat("é", 4500)
	parts := notionRichText(text)
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	var joined strings.Builder
	for _, p := range parts {
		c := p.(map[string]any)["text"].(map[string]any)["content"].(string)
		if n := utf8.RuneCountInString(c); n > notionTextMax {
			t.Fatalf("a part of %d characters", n)
		}
		joined.WriteString(c)
	}
	if joined.String() != text {
		t.Fatal("the parts are not the text")
	}
	if _, err := notionParagraphs(strings.Repeat("p\n\n", 101)); err == nil {
		t.Fatal("101 paragraphs accepted")
	}
	if b, err := notionParagraphs("one\r\n\r\ntwo\n\n\n"); err != nil || len(b) != 2 {
		t.Fatalf("paragraphs = %v, %v", b, err)
	}
}
