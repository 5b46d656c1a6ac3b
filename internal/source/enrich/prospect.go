package enrich

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Prospect is the spec's data.prospect of an enriched profile.
type Prospect struct {
	Gender            string   `json:"gender"`
	JobTitleRole      string   `json:"job_title_role"`
	JobTitleSubRole   string   `json:"job_title_sub_role"`
	Summary           string   `json:"summary"`
	Avatar            string   `json:"avatar"`
	FirstName         string   `json:"first_name"`
	LastName          string   `json:"last_name"`
	FullName          string   `json:"full_name"`
	JobCompanyName    string   `json:"job_company_name"`
	JobTitle          string   `json:"job_title"`
	JobCompanyWebsite string   `json:"job_company_website"`
	Industry          string   `json:"industry"`
	LocationName      string   `json:"location_name"`
	LocationCountry   string   `json:"location_country"`
	PronetURL         string   `json:"pronet_url"`
	PronetURN         string   `json:"pronet_urn"`
	JobTitleLevels    []string `json:"job_title_levels"`
	Languages         []string `json:"languages"`
	OpenToWork        bool     `json:"open_to_work"`
	Premium           bool     `json:"premium"`
	Influencer        bool     `json:"influencer"`
	FollowerCount     int      `json:"follower_count"`
	ConnectionCount   int      `json:"connection_count"`
}

// Experience is one entry of the spec's data.experience. Dates are YYYY-MM (or YYYY);
// end_date is "" for a current job.
type Experience struct {
	CompanyName string `json:"company_name"`
	JobTitle    string `json:"job_title"`
	Location    string `json:"location"`
	StartDate   string `json:"start_date"`
	EndDate     string `json:"end_date"`
	CompanyLogo string `json:"company_logo"`
}

// BuildProspect merges a PDL person and a pronet profile into the enriched profile. PDL gives
// the job, role, gender, industry and location; the pronet profile gives the names (as the
// member writes them; PDL's may be lower case), the avatar, URN,
// premium, creator (influencer), open-to-work and the counts. Each side fills what the other
// lacks. Experience comes from PDL (current jobs first) with logos from the pronet positions,
// or from the pronet positions alone when PDL has none.
func BuildProspect(p Person, prof pronet.Profile) (Prospect, []Experience) {
	cur := currentPosition(prof.Position)
	pr := Prospect{
		Gender:            p.Sex,
		JobTitleRole:      p.JobTitleRole,
		JobTitleSubRole:   p.JobTitleSubRole,
		Summary:           first(p.Summary, prof.Summary),
		Avatar:            prof.ProfilePicture,
		FirstName:         first(prof.FirstName, p.FirstName),
		LastName:          first(prof.LastName, p.LastName),
		JobCompanyName:    first(p.JobCompanyName, cur.CompanyName),
		JobTitle:          first(p.JobTitle, cur.Title),
		JobCompanyWebsite: first(p.JobCompanyWebsite, cur.CompanyWebsite),
		Industry:          first(p.Industry, cur.CompanyIndustry),
		LocationName:      first(p.LocationName, prof.Geo.Full),
		LocationCountry:   first(p.LocationCountry, prof.Geo.Country),
		PronetURL:         pronetURL(p, prof),
		PronetURN:         pronetURN(p, prof),
		JobTitleLevels:    orEmpty(p.JobTitleLevels),
		Languages:         orEmpty(firstList(p.Languages, prof.Languages)),
		OpenToWork:        prof.IsOpenToWork,
		Premium:           prof.IsPremium,
		Influencer:        prof.IsCreator,
		FollowerCount:     prof.FollowerCount,
		ConnectionCount:   prof.ConnectionCount,
	}
	pr.FullName = p.FullName
	if prof.FirstName != "" || prof.LastName != "" {
		pr.FullName = strings.TrimSpace(prof.FirstName + " " + prof.LastName)
	}
	return pr, experience(p.Experience, prof.Position)
}

func pronetURL(p Person, prof pronet.Profile) string {
	if u := first(prof.Username, p.LinkedinUsername); u != "" {
		return pronet.ProfileURL(u)
	}
	if p.LinkedinURL != "" {
		if slug, err := pronet.ParseProfileURL(p.LinkedinURL, nil); err == nil {
			return pronet.ProfileURL(slug)
		}
	}
	return ""
}

// pronetURN is urn:li:member:<id> (usable as a mentions_member filter) when a numeric member
// id is known, else the profile's own URN.
func pronetURN(p Person, prof pronet.Profile) string {
	switch {
	case prof.ID > 0:
		return "urn:li:member:" + strconv.FormatInt(int64(prof.ID), 10)
	case prof.URN != "":
		return prof.URN
	case p.LinkedinID != "" && strings.IndexFunc(p.LinkedinID, func(r rune) bool { return !unicode.IsDigit(r) }) < 0:
		return "urn:li:member:" + p.LinkedinID
	}
	return ""
}

func experience(jobs []Job, positions []pronet.Position) []Experience {
	logos := map[string]string{}
	for _, pos := range positions {
		if k := strings.ToLower(strings.TrimSpace(pos.CompanyName)); k != "" && pos.CompanyLogo != "" {
			logos[k] = pos.CompanyLogo
		}
	}
	out := []Experience{}
	if len(jobs) == 0 {
		for _, pos := range positions {
			out = append(out, Experience{CompanyName: pos.CompanyName, JobTitle: pos.Title, Location: pos.Location,
				StartDate: pos.Start.String(), EndDate: pos.End.String(), CompanyLogo: pos.CompanyLogo})
		}
		return out
	}
	jobs = slices.Clone(jobs)
	// Current jobs first (primary before others), then the most recent start.
	slices.SortStableFunc(jobs, func(a, b Job) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return strings.Compare(b.StartDate, a.StartDate)
	})
	for _, j := range jobs {
		e := Experience{CompanyName: j.CompanyName, JobTitle: j.Title, StartDate: j.StartDate, EndDate: j.EndDate,
			CompanyLogo: logos[strings.ToLower(strings.TrimSpace(j.CompanyName))]}
		if len(j.LocationNames) > 0 {
			e.Location = j.LocationNames[0]
		}
		out = append(out, e)
	}
	return out
}

func rank(j Job) int {
	switch {
	case j.IsPrimary:
		return 0
	case j.EndDate == "":
		return 1
	}
	return 2
}

// currentPosition is the first position still held, else the first listed.
func currentPosition(ps []pronet.Position) pronet.Position {
	for _, p := range ps {
		if p.End.IsZero() {
			return p
		}
	}
	if len(ps) > 0 {
		return ps[0]
	}
	return pronet.Position{}
}

// first returns the first non-empty string.
func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// firstList returns the first non-empty list.
func firstList(vals ...[]string) []string {
	for _, v := range vals {
		if len(v) > 0 {
			return v
		}
	}
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
