package httpapi

import (
	"bytes"
	"encoding/csv"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/mapping"
)

// TestWriteCSVFlushesEachBatchBeforeReadingTheNext: what the client has
// received when the next batch is asked for is everything before it, so an
// export never holds more than one batch.
func TestWriteCSVFlushesEachBatchBeforeReadingTheNext(t *testing.T) {
	var (
		sink    bytes.Buffer // what reached the client
		pending bytes.Buffer // written but not flushed
	)
	flush := func() error { sink.Write(pending.Bytes()); pending.Reset(); return nil }
	batches := [][][]string{{{"1", "a"}, {"2", "b"}}, {{"3", "c"}}, {{"4", "d"}, {"5", "e"}}}
	next := 1
	err := writeCSV(&pending, flush, []string{"id", "v"}, batches[0], func() ([][]string, error) {
		got, err := csv.NewReader(bytes.NewReader(sink.Bytes())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := [][]string{{"id", "v"}}
		for _, b := range batches[:next] {
			want = append(want, b...)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("before batch %d the client has %q, want %q", next, got, want)
		}
		if next == len(batches) {
			return nil, nil
		}
		next++
		return batches[next-1], nil
	})
	if err != nil || pending.Len() != 0 || next != len(batches) {
		t.Fatalf("writeCSV = %v, %d bytes unflushed, %d batches read", err, pending.Len(), next)
	}
	if !strings.HasSuffix(sink.String(), "5,e\r\n") {
		t.Fatalf("records do not end with CRLF: %q", sink.String())
	}
}

func TestWriteCSVStopsOnAFailedBatch(t *testing.T) {
	var out bytes.Buffer
	boom := errors.New("boom")
	err := writeCSV(&out, func() error { return nil }, []string{"id"}, [][]string{{"1"}}, func() ([][]string, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("writeCSV = %v, want the batch's error", err)
	}
}

func TestCSVQuotesAndNeutralizes(t *testing.T) {
	var out bytes.Buffer
	row := []string{"a, b", `say "hi"`, "line\nbreak", "=1+1", "+49 30", "-x", "@me", "\tx", "plain", ""}
	if err := writeCSV(&out, func() error { return nil }, []string{"h"}, [][]string{slices.Clone(row)}, func() ([][]string, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(&out)
	r.FieldsPerRecord = -1 // a one-column header over a wide row
	got, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a, b", `say "hi"`, "line\nbreak", "'=1+1", "'+49 30", "'-x", "'@me", "'\tx", "plain", ""}
	if len(got) != 2 || !slices.Equal(got[1], want) {
		t.Fatalf("read back %q, want %q", got, want)
	}
}

func TestWantsCSV(t *testing.T) {
	for _, c := range []struct {
		format, accept string
		want           bool
	}{
		{"", "", false}, {"", "*/*", false}, {"", "text/csv", true}, {"", "application/json", false},
		{"", "application/json, text/csv", false}, {"", "text/csv, application/json", false}, {"", "text/csv, */*", true},
		{"", "application/json;q=0.4, text/csv", true}, {"", "text/csv;q=0.1, application/json", false},
		{"csv", "application/json", true}, {"json", "text/csv", false}, {"", "text/html", false},
	} {
		if got := wantsCSV(c.format, c.accept); got != c.want {
			t.Errorf("wantsCSV(%q, %q) = %v, want %v", c.format, c.accept, got, c.want)
		}
	}
}

// FuzzWantsCSV: any Accept header is answered, CSV only when it names text/csv.
func FuzzWantsCSV(f *testing.F) {
	for _, s := range []string{"text/csv", "text/csv;q=", ";;,,", "application/json;q=x, text/csv", "text/csv;q=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		if wantsCSV("", accept) && !strings.Contains(accept, "text/csv") {
			t.Fatalf("CSV for Accept %q", accept)
		}
	})
}

// TestSeniorityDocListsLevels: the seniority filter's description names
// every level of mapping.SeniorityLevels, where the levels are defined.
func TestSeniorityDocListsLevels(t *testing.T) {
	f, _ := reflect.TypeOf(AuthorQuery{}).FieldByName("Seniority")
	doc := f.Tag.Get("doc")
	for _, l := range mapping.SeniorityLevels() {
		if !strings.Contains(doc, " "+l+",") && !strings.Contains(doc, " "+l+" ") {
			t.Errorf("the seniority parameter's description lacks %s: %s", l, doc)
		}
	}
}
