package console

import (
	"net/http"
	"testing"
)

// An API refusal's field messages land at the form's inputs: nested paths
// at their input, array elements at the array's, the rest listed apart.
func TestProblemAtFields(t *testing.T) {
	a := apiAnswer{Status: http.StatusBadRequest, Body: []byte(`{"success":false,"message":"Invalid request.","error":{"code":"VALIDATION_ERROR","message":"The request is invalid.",
		"details":{"fields":[{"field":"body.keywords[1]","message":"must not be empty"},{"field":"body.filters.min_likes","message":"must be at least 0"},{"field":"query.cursor","message":"is not a cursor"}]}}}`)}
	p := a.Problem()
	if !p.Has() || p.Code != "VALIDATION_ERROR" || p.Message != "The request is invalid." {
		t.Fatalf("problem = %+v", p)
	}
	if got := p.At("keywords"); got.Message != "must not be empty" || got.ID != "keywords" {
		t.Errorf("At(keywords) = %+v", got)
	}
	if got := p.At("filters.min_likes"); got.Message != "must be at least 0" || got.ID != "filters-min_likes" {
		t.Errorf("At(filters.min_likes) = %+v", got)
	}
	if got := p.At("name"); got.Message != "" {
		t.Errorf("At(name) = %+v, want no message", got)
	}
	placed := p.Place("keywords", "filters")
	if len(placed.Unplaced) != 1 || placed.Unplaced[0].Field != "query.cursor" {
		t.Errorf("Unplaced = %+v, want only query.cursor", placed.Unplaced)
	}
	if ok := (apiAnswer{Status: 201, Body: []byte(`{}`)}).Problem(); ok.Has() {
		t.Errorf("a 201 has a problem: %+v", ok)
	}
	if bad := (apiAnswer{Status: 502, Body: []byte(`<html>`)}).Problem(); !bad.Has() || bad.Status != 502 {
		t.Errorf("a non-JSON 502 = %+v", bad)
	}
}
