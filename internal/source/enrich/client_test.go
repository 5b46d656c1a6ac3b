package enrich_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// pdlMatch is shaped like PDL's documented enrichment answer: {status, likelihood, data}
// with null for fields PDL has no data for.
const pdlMatch = `{
  "status": 200, "likelihood": 9,
  "data": {
    "id": "qEnOZ5Oh0poWnQ1luFBfVw_0000", "full_name": "Jane Doe", "first_name": "Jane", "last_name": "Doe",
    "sex": "Female", "headline": null, "summary": null,
    "linkedin_url": "linkedin.com/in/jane-doe", "linkedin_username": "jane-doe", "linkedin_id": "123456",
    "industry": "Computer Software", "job_title": "Chief Technology Officer", "job_title_role": "engineering",
    "job_title_sub_role": "software", "job_title_levels": ["cxo"], "job_company_name": "Acme",
    "job_company_website": "acme.io", "location_name": "Berlin, Berlin, Germany", "location_country": "Germany",
    "work_email": true,
    "languages": [{"name": "English", "proficiency": 5}, {"name": "German", "proficiency": 4}],
    "experience": [
      {"company": {"name": "Beta", "website": "beta.com"}, "location_names": ["Munich, Germany"], "end_date": "2021-03",
       "start_date": "2017-01", "title": {"name": "Engineering Manager", "role": "engineering", "levels": ["manager"]}, "is_primary": false},
      {"company": {"name": "Acme", "website": "acme.io"}, "location_names": [], "end_date": null,
       "start_date": "2021-04", "title": {"name": "Chief Technology Officer", "role": "engineering"}, "is_primary": true},
      {"company": null, "title": null, "start_date": null, "end_date": "2016-12", "is_primary": false}
    ]
  }
}`

func newClient(t *testing.T, srv *sourcetest.Server) (*enrich.Client, *sourcetest.Sleeper) {
	t.Helper()
	sl := &sourcetest.Sleeper{}
	return enrich.New(enrich.Config{BaseURL: srv.URL, APIKey: "pdl-key", Sleep: sl.Sleep, Now: sourcetest.FixedClock(now)}), sl
}

func TestPersonByProfile(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, pdlMatch)
	})
	c, _ := newClient(t, srv)
	m, err := c.MatchByProfile(context.Background(), "https://www.linkedin.com/in/jane-doe")
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/v5/person/enrich" || req.Query.Get("profile") != "https://www.linkedin.com/in/jane-doe" || req.Query.Get("titlecase") != "true" {
		t.Errorf("request = %s %v", req.Path, req.Query)
	}
	if req.Header.Get("X-Api-Key") != "pdl-key" {
		t.Errorf("X-Api-Key = %q", req.Header.Get("X-Api-Key"))
	}
	p := m.Person
	if m.Likelihood != 9 || p.FullName != "Jane Doe" || p.Sex != "Female" || p.JobTitleRole != "engineering" ||
		!slices.Equal(p.JobTitleLevels, []string{"cxo"}) || !slices.Equal(p.Languages, []string{"English", "German"}) || p.Summary != "" {
		t.Errorf("person = %+v", p)
	}
	if len(p.Experience) != 3 || p.Experience[0].CompanyName != "Beta" || p.Experience[0].Title != "Engineering Manager" ||
		p.Experience[0].LocationNames[0] != "Munich, Germany" || !p.Experience[1].IsPrimary || p.Experience[1].EndDate != "" {
		t.Errorf("experience = %+v", p.Experience)
	}
}

func TestPersonLegacyGenderAndRoundTrip(t *testing.T) {
	var p enrich.Person
	if err := json.Unmarshal([]byte(`{"gender":"male","languages":["english"],"experience":[{"company":"Old Co","title":"Dev"}],"job_title":false}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Sex != "male" || p.Languages[0] != "english" || p.Experience[0].CompanyName != "Old Co" || p.Experience[0].Title != "Dev" || p.JobTitle != "" {
		t.Errorf("person = %+v", p)
	}
	b, _ := json.Marshal(p)
	var back enrich.Person
	if err := json.Unmarshal(b, &back); err != nil || back.Experience[0].CompanyName != "Old Co" || back.Sex != "male" {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		header   map[string]string
		body     string
		attempts int
		check    func(t *testing.T, err error)
	}{
		{"404", 404, nil, `{"status":404,"error":{"type":"not_found","message":"No records were found matching your request"}}`, 1, func(t *testing.T, err error) {
			if !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), "No records were found") {
				t.Errorf("err = %v", err)
			}
		}},
		{"401", 401, nil, `{"status":401,"error":{"type":"authentication_error","message":"Request contained a missing or invalid key"}}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 401 || !strings.Contains(err.Error(), "invalid key") {
				t.Errorf("err = %v", err)
			}
		}},
		{"402", 402, nil, `{"status":402,"error":{"type":"payment_required","message":"You have hit your account maximum"}}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 402 {
				t.Errorf("err = %v", err)
			}
		}},
		{"429", 429, map[string]string{"Retry-After": "60"}, `{"status":429,"error":{"type":"rate_limit_error","message":"An error occurred due to requests hitting the API too quick"}}`, 1, func(t *testing.T, err error) {
			var rl *source.RateLimitError
			if !errors.As(err, &rl) || !rl.ResetAt.Equal(now.Add(time.Minute)) || rl.Source != "enrich" {
				t.Errorf("err = %v", err)
			}
		}},
		{"500", 500, nil, `{"status":500,"error":{"type":"api_error","message":"unexpected"}}`, 3, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 500 {
				t.Errorf("err = %v", err)
			}
		}},
		{"malformed json", 200, nil, `{"status":200,"data":{`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 200 {
				t.Errorf("err = %v", err)
			}
		}},
		{"200 without data", 200, nil, `{"status":404,"likelihood":0,"data":null}`, 1, func(t *testing.T, err error) {
			if !errors.Is(err, source.ErrNotFound) {
				t.Errorf("err = %v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				sourcetest.JSON(w, tc.status, tc.body)
			})
			c, _ := newClient(t, srv)
			_, err := c.PersonByProfile(context.Background(), "https://www.linkedin.com/in/x")
			tc.check(t, err)
			if got := len(srv.Requests()); got != tc.attempts {
				t.Errorf("attempts = %d, want %d", got, tc.attempts)
			}
		})
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			sourcetest.JSON(w, 503, `{}`)
			return
		}
		sourcetest.JSON(w, 200, pdlMatch)
	})
	c, sl := newClient(t, srv)
	p, err := c.PersonByProfile(context.Background(), "https://www.linkedin.com/in/jane-doe")
	if err != nil || p.FullName != "Jane Doe" || len(sl.Durations()) != 1 {
		t.Fatalf("p = %+v, err = %v, sleeps = %v", p, err, sl.Durations())
	}
}

func TestCallerDeadline(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.PersonByProfile(ctx, "https://www.linkedin.com/in/x")
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

var profile = pronet.Profile{
	ID: 9876, URN: "ACoAAAAAJpQ", Username: "jane-doe", FirstName: "Jane", LastName: "Doe", Summary: "Builds things",
	ProfilePicture: "https://p.jpg", IsOpenToWork: true, IsPremium: true, IsCreator: true, FollowerCount: 5400, ConnectionCount: 500,
	Languages: []string{"English"}, Geo: pronet.Geo{Country: "Germany", Full: "Berlin, Germany"},
	Position: []pronet.Position{
		{CompanyName: "Acme", CompanyLogo: "https://logo/acme", CompanyWebsite: "https://acme.io", CompanyIndustry: "Software", Title: "CTO", Location: "Berlin", Start: pronet.YearMonth{Year: 2021, Month: 4}},
		{CompanyName: "Beta", CompanyLogo: "https://logo/beta", Title: "EM", Start: pronet.YearMonth{Year: 2017, Month: 1}, End: pronet.YearMonth{Year: 2021, Month: 3}},
	},
}

func TestBuildProspect(t *testing.T) {
	var body struct{ Data enrich.Person }
	if err := json.Unmarshal([]byte(pdlMatch), &body); err != nil {
		t.Fatal(err)
	}
	pr, exp := enrich.BuildProspect(body.Data, profile)
	want := enrich.Prospect{
		Gender: "Female", JobTitleRole: "engineering", JobTitleSubRole: "software", Summary: "Builds things", Avatar: "https://p.jpg",
		FirstName: "Jane", LastName: "Doe", FullName: "Jane Doe", JobCompanyName: "Acme", JobTitle: "Chief Technology Officer",
		JobCompanyWebsite: "acme.io", Industry: "Computer Software", LocationName: "Berlin, Berlin, Germany", LocationCountry: "Germany",
		PronetURL: "https://www.linkedin.com/in/jane-doe", PronetURN: "urn:li:member:9876", JobTitleLevels: []string{"cxo"},
		Languages: []string{"English", "German"}, OpenToWork: true, Premium: true, Influencer: true, FollowerCount: 5400, ConnectionCount: 500,
	}
	gotJSON, _ := json.Marshal(pr)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("prospect =\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	if len(exp) != 3 {
		t.Fatalf("experience = %+v", exp)
	}
	if exp[0] != (enrich.Experience{CompanyName: "Acme", JobTitle: "Chief Technology Officer", StartDate: "2021-04", CompanyLogo: "https://logo/acme"}) {
		t.Errorf("current job = %+v", exp[0])
	}
	if exp[1].CompanyName != "Beta" || exp[1].Location != "Munich, Germany" || exp[1].EndDate != "2021-03" || exp[1].CompanyLogo != "https://logo/beta" {
		t.Errorf("past job = %+v", exp[1])
	}
}

func TestBuildProspectFallsBackToProfile(t *testing.T) {
	pr, exp := enrich.BuildProspect(enrich.Person{}, profile)
	if pr.JobTitle != "CTO" || pr.JobCompanyName != "Acme" || pr.Industry != "Software" || pr.LocationName != "Berlin, Germany" ||
		pr.LocationCountry != "Germany" || pr.FullName != "Jane Doe" || !slices.Equal(pr.Languages, []string{"English"}) || pr.JobTitleLevels == nil {
		t.Errorf("prospect = %+v", pr)
	}
	if len(exp) != 2 || exp[0].StartDate != "2021-04" || exp[0].EndDate != "" || exp[1].EndDate != "2021-03" || exp[0].Location != "Berlin" {
		t.Errorf("experience = %+v", exp)
	}
	// Without a pronet profile, PDL's own identifiers still give the URL and URN.
	pr, exp = enrich.BuildProspect(enrich.Person{LinkedinURL: "linkedin.com/in/sam", LinkedinID: "42"}, pronet.Profile{})
	if pr.PronetURL != "https://www.linkedin.com/in/sam" || pr.PronetURN != "urn:li:member:42" || exp == nil || pr.Languages == nil {
		t.Errorf("PDL only: %+v %v", pr, exp)
	}
}

func FuzzPersonUnmarshal(f *testing.F) {
	f.Add([]byte(pdlMatch))
	f.Add([]byte(`{"experience":[{"company":1,"title":[1]}],"languages":[null,{"name":2}],"job_title_levels":"x"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p enrich.Person
		if err := json.Unmarshal(b, &p); err != nil {
			return
		}
		enrich.BuildProspect(p, pronet.Profile{})
	})
}

func TestBuildProspectPrefersMemberNames(t *testing.T) {
	// PDL without titlecase answers in lower case; the member's own spelling wins.
	pr, _ := enrich.BuildProspect(enrich.Person{FirstName: "jane", LastName: "doe", FullName: "jane doe"}, pronet.Profile{FirstName: "Jane", LastName: "McDoe"})
	if pr.FirstName != "Jane" || pr.LastName != "McDoe" || pr.FullName != "Jane McDoe" {
		t.Errorf("names = %q %q %q", pr.FirstName, pr.LastName, pr.FullName)
	}
	pr, _ = enrich.BuildProspect(enrich.Person{FirstName: "jane", LastName: "doe", FullName: "jane doe"}, pronet.Profile{})
	if pr.FullName != "jane doe" || pr.FirstName != "jane" {
		t.Errorf("PDL names = %q %q", pr.FirstName, pr.FullName)
	}
}
