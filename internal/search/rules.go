package search

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/query"
	"github.com/trawlhq/trawl/internal/source/microblog"
)

// The rules of a search body live here, not in the HTTP layer, so that the
// API, the CLI and workflow actions accept exactly the same definitions.
// Each platform's body is a type that validates itself into a Definition and
// lists every problem by field.

// Problem is one invalid field of a body: its path inside the body
// (keywords, keywords[1], filters.job_titles) and the rule it breaks.
type Problem struct {
	Field   string
	Message string
}

// Problems lists every invalid field of a body.
type Problems []Problem

func (p *Problems) add(field, format string, args ...any) {
	*p = append(*p, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Error lists the problems in one line.
func (p Problems) Error() string {
	parts := make([]string, len(p))
	for i, pr := range p {
		parts[i] = pr.Field + ": " + pr.Message
	}
	return "search: invalid definition: " + strings.Join(parts, "; ")
}

// Rules are the settings the rules depend on.
type Rules struct {
	// ForCreate makes name required (previews ignore it).
	ForCreate bool
	// QueryMaxLength limits a compiled microblog query (TRAWL_QUERY_MAX_LENGTH); 0 means X's 512.
	QueryMaxLength int
	// MicroblogHosts and PronetHosts are the host names profile URLs may use.
	MicroblogHosts []string
	PronetHosts    []string
}

var (
	usernameRE   = regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`)
	countryRE    = regexp.MustCompile(`^[A-Za-z]{2}$`)
	languageRE   = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$`)
	numericIDRE  = regexp.MustCompile(`^[0-9]{1,19}$`)
	contextRE    = regexp.MustCompile(`^[0-9]{1,19}\.([0-9]{1,19}|\*)$`)
	standaloneOp = "from_users, to_user, url_contains, place_country, retweets_of, conversation_id, list_id or context_annotation"
)

// MaxKeywords is how many keywords, keywords_and and keywords_not hold together.
const MaxKeywords = 10

// MicroblogPosts is the body of a microblog keyword search (and of its preview).
type MicroblogPosts struct {
	Name              string   `json:"name,omitempty"`
	Keywords          []string `json:"keywords,omitempty"`
	KeywordsAnd       []string `json:"keywords_and,omitempty"`
	KeywordsNot       []string `json:"keywords_not,omitempty"`
	TimeFrame         string   `json:"time_frame,omitempty"`
	MaxResults        int      `json:"max_results,omitempty"`
	Frequency         string   `json:"frequency,omitempty"`
	SearchType        string   `json:"search_type,omitempty"`
	MicroblogLanguage string   `json:"microblog_language,omitempty"`
	ExcludeRetweets   bool     `json:"exclude_retweets,omitempty"`
	ExcludeReplies    bool     `json:"exclude_replies,omitempty"`
	VerifiedOnly      bool     `json:"verified_only,omitempty"`
	HasLinks          bool     `json:"has_links,omitempty"`
	UseFullArchive    bool     `json:"use_full_archive,omitempty"`
	HasMedia          *string  `json:"has_media,omitempty"`
	FromUsers         []string `json:"from_users,omitempty"`
	ToUser            string   `json:"to_user,omitempty"`
	URLContains       string   `json:"url_contains,omitempty"`
	RetweetsOf        string   `json:"retweets_of,omitempty"`
	ConversationID    string   `json:"conversation_id,omitempty"`
	ListID            string   `json:"list_id,omitempty"`
	ContextAnnotation string   `json:"context_annotation,omitempty"`
	PlaceCountry      string   `json:"place_country,omitempty"`
	WebhookURL        string   `json:"webhook_url,omitempty"`
}

// MicroblogProfile is the body of a microblog profile monitor (and of its preview).
type MicroblogProfile struct {
	Name       string `json:"name,omitempty"`
	ProfileURL string `json:"profile_url"`
	MaxResults int    `json:"max_results,omitempty"`
	Frequency  string `json:"frequency,omitempty"`
	WebhookURL string `json:"webhook_url,omitempty"`
}

// Definition validates the body, fills in the defaults and lists every problem.
func (b MicroblogPosts) Definition(r Rules) (Definition, Problems) {
	var p Problems
	if r.ForCreate {
		checkName(b.Name, &p)
	}
	d := Definition{
		Keywords:        cleanList("keywords", b.Keywords, &p),
		KeywordsAnd:     cleanList("keywords_and", b.KeywordsAnd, &p),
		KeywordsNot:     cleanList("keywords_not", b.KeywordsNot, &p),
		TimeFrame:       timeFrame(b.TimeFrame, "time_frame", TimeFrames(), &p),
		MaxResults:      maxResults(b.MaxResults, "max_results", &p),
		Frequency:       frequency(b.Frequency, "frequency", &p),
		SearchType:      canonicalSearchType(cmp.Or(b.SearchType, DefaultSearchType), &p),
		JobTitles:       []string{},
		Language:        strings.TrimSpace(b.MicroblogLanguage),
		ExcludeRetweets: b.ExcludeRetweets, ExcludeReplies: b.ExcludeReplies, VerifiedOnly: b.VerifiedOnly,
		HasLinks: b.HasLinks, UseFullArchive: b.UseFullArchive,
		URLContains: strings.TrimSpace(b.URLContains),
	}
	if len(b.Keywords) > MaxKeywords {
		p.add("keywords", "holds %d items; at most %d are allowed", len(b.Keywords), MaxKeywords)
	} else if total := len(b.Keywords) + len(b.KeywordsAnd) + len(b.KeywordsNot); total > MaxKeywords {
		p.add("keywords", "keywords, keywords_and and keywords_not hold %d items together; at most %d are allowed", total, MaxKeywords)
	}
	if b.HasMedia != nil {
		switch m := strings.ToLower(*b.HasMedia); m {
		case "any", "images", "video":
			d.HasMedia = m
		default:
			p.add("has_media", "must be any, images, video or null")
		}
	}
	if d.Language != "" && !languageRE.MatchString(d.Language) {
		p.add("microblog_language", "must be a language code such as en or pt-BR")
	}
	for i, u := range b.FromUsers {
		d.FromUsers = append(d.FromUsers, cleanUsername(fmt.Sprintf("from_users[%d]", i), u, &p))
	}
	if b.ToUser != "" {
		d.ToUser = cleanUsername("to_user", b.ToUser, &p)
	}
	if b.RetweetsOf != "" {
		d.RetweetsOf = cleanUsername("retweets_of", b.RetweetsOf, &p)
	}
	if v := strings.TrimSpace(b.PlaceCountry); v != "" {
		if !countryRE.MatchString(v) {
			p.add("place_country", "must be a two-letter country code such as US")
		}
		d.PlaceCountry = strings.ToUpper(v)
	}
	if v := strings.TrimSpace(b.ConversationID); v != "" {
		if !numericIDRE.MatchString(v) {
			p.add("conversation_id", "must be a numeric post id")
		}
		d.ConversationID = v
	}
	if v := strings.TrimSpace(b.ListID); v != "" {
		if !numericIDRE.MatchString(v) {
			p.add("list_id", "must be a numeric list id")
		}
		d.ListID = v
	}
	if v := strings.TrimSpace(b.ContextAnnotation); v != "" {
		if !contextRE.MatchString(v) {
			p.add("context_annotation", "must be domain_id.entity_id, e.g. 65.825047692124442624")
		}
		d.ContextAnnotation = v
	}
	hasStandalone := len(d.FromUsers) > 0 || d.ToUser != "" || d.URLContains != "" || d.PlaceCountry != "" ||
		d.RetweetsOf != "" || d.ConversationID != "" || d.ListID != "" || d.ContextAnnotation != ""
	if len(d.Keywords)+len(d.KeywordsAnd) == 0 && !hasStandalone && len(b.Keywords) == 0 {
		p.add("keywords", "is required unless a standalone operator is given (%s)", standaloneOp)
	}
	if len(p) == 0 {
		var tooLong *query.LengthError
		if _, err := d.Compile(r.QueryMaxLength); errors.As(err, &tooLong) {
			p.add("keywords", "the compiled query is %d characters long; the limit is %d", tooLong.Length, tooLong.Limit)
		} else if errors.Is(err, query.ErrNoStandalone) {
			p.add("keywords", "needs at least one keyword or standalone operator that is not an exclusion")
		} else if err != nil {
			p.add("", "%v", err)
		}
	}
	d.WebhookURL = webhookURL(b.WebhookURL, "webhook_url", &p)
	return d, p
}

// Definition validates the body, fills in the defaults and lists every problem.
func (b MicroblogProfile) Definition(r Rules) (Definition, Problems) {
	var p Problems
	if r.ForCreate {
		checkName(b.Name, &p)
	}
	hosts := r.MicroblogHosts
	if len(hosts) == 0 {
		hosts = []string{"x.com", "twitter.com"}
	}
	username, err := microblog.ParseProfileURL(strings.TrimSpace(b.ProfileURL), hosts)
	if err != nil {
		p.add("profile_url", "must be a profile URL on %s, e.g. https://%s/jack", strings.Join(hosts, " or "), hosts[0])
	}
	d := Definition{
		Keywords: []string{}, KeywordsAnd: []string{}, KeywordsNot: []string{}, JobTitles: []string{},
		TimeFrame:  DefaultTimeFrame,
		MaxResults: maxResults(b.MaxResults, "max_results", &p),
		Frequency:  frequency(b.Frequency, "frequency", &p),
		SearchType: DefaultSearchType,
		ProfileURL: "https://" + hosts[0] + "/" + username, ProfileUsername: username,
	}
	d.WebhookURL = webhookURL(b.WebhookURL, "webhook_url", &p)
	return d, p
}

func checkName(name string, p *Problems) {
	n := len([]rune(strings.TrimSpace(name)))
	if n < 1 || n > 255 {
		p.add("name", "is required and must be 1-255 characters")
	}
}

// cleanList trims every item and reports the empty ones.
func cleanList(field string, in []string, p *Problems) []string {
	out := make([]string, 0, len(in))
	for i, v := range in {
		v = strings.TrimSpace(v)
		if v == "" {
			p.add(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
			continue
		}
		out = append(out, v)
	}
	return out
}

func cleanUsername(field, v string, p *Problems) string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "@")
	if !usernameRE.MatchString(v) {
		p.add(field, "must be a username of 1-15 letters, digits or underscores")
	}
	return v
}

// timeFrame reads a time_frame among allowed (any case); "" is the default.
func timeFrame(v, field string, allowed []string, p *Problems) string {
	v = strings.ToLower(cmp.Or(v, DefaultTimeFrame))
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	p.add(field, "must be one of %s", strings.Join(allowed, ", "))
	return v
}

// maxResults reads max_results: 10-100, 0 for the default.
func maxResults(n int, field string, p *Problems) int {
	if n == 0 {
		return DefaultMaxResults
	}
	if n < 10 || n > 100 {
		p.add(field, "must be 10-100")
	}
	return n
}

// frequency reads a frequency in any case; "" is the default.
func frequency(v, field string, p *Problems) Frequency {
	f := Frequency(strings.ToUpper(cmp.Or(v, string(DefaultFrequency))))
	for _, ok := range Frequencies() {
		if f == ok {
			return f
		}
	}
	p.add(field, "must be one of HOURLY, EVERY_12H, DAILY, WEEKLY, MONTHLY, QUARTERLY")
	return f
}

func canonicalSearchType(s string, p *Problems) string {
	for _, v := range []string{"Top", "Latest", "Videos", "Photos"} {
		if strings.EqualFold(s, v) {
			return v
		}
	}
	p.add("search_type", "must be Top, Latest, Videos or Photos")
	return s
}

// GateError is a definition the caller's plan or key may not use. Field
// names what asks for it.
type GateError struct {
	// Feature is auth.FeatureHourlyFrequency, or "" for full-archive access.
	Feature auth.Feature
	Field   string
	Message string
}

func (e *GateError) Error() string { return "search: " + e.Field + " " + e.Message }

// Gate enforces the plan and key requirements of a definition: HOURLY needs
// a plan with hourly searches (on every platform), use_full_archive a key
// with full-archive access.
func (d Definition) Gate(plan auth.Plan, fullArchiveKey bool) *GateError {
	if d.Frequency == Hourly && !plan.Allows(auth.FeatureHourlyFrequency) {
		return &GateError{Feature: auth.FeatureHourlyFrequency, Field: "frequency", Message: "HOURLY needs the ENTERPRISE or CUSTOM plan"}
	}
	if d.UseFullArchive && !fullArchiveKey {
		return &GateError{Field: "use_full_archive", Message: "needs elevated access"}
	}
	return nil
}

// Patch is a partial update of a saved search (PATCH /v1/searches/{id}).
type Patch struct {
	Name    *string       `json:"name,omitempty"`
	Status  string        `json:"status,omitempty"`
	Query   *PatchQuery   `json:"query,omitempty"`
	Filters *PatchFilters `json:"filters,omitempty"`
	// WebhookURL sets the search's webhook_url; "" clears it.
	WebhookURL *string `json:"webhook_url,omitempty"`
}

// PatchFilters are the filters.* a patch may change. content_type and
// pronet_sort_by apply to pronet keyword searches only.
type PatchFilters struct {
	TimeFrame    string   `json:"time_frame,omitempty"`
	MaxResults   int      `json:"max_results,omitempty"`
	Frequency    string   `json:"frequency,omitempty"`
	JobTitles    []string `json:"job_titles,omitempty"`
	ContentType  string   `json:"content_type,omitempty"`
	PronetSortBy string   `json:"pronet_sort_by,omitempty"`
	// Pronet keyword searches: nil leaves them, [] empties them.
	MentionsMember       []string `json:"mentions_member,omitempty"`
	MentionsOrganization []string `json:"mentions_organization,omitempty"`
}

// Apply validates the patch against the search and, when it is valid,
// applies it at now. resumed reports a paused search made active (it runs
// at once). A new frequency counts from the last run.
func (pt Patch) Apply(s *Search, now time.Time) (resumed bool, _ Problems) {
	return pt.ApplyRules(s, now, Rules{})
}

// ApplyRules is Apply with the settings a create checks against (the
// compiled query's length, the hosts): keywords and mentions are checked
// again as a create checks them.
func (pt Patch) ApplyRules(s *Search, now time.Time, r Rules) (resumed bool, _ Problems) {
	var (
		p         Problems
		d         = s.Definition
		status    = s.Status
		jobTitles []string
	)
	if pt.Name != nil {
		checkName(*pt.Name, &p)
	}
	d = requery(s.Kind, d, pt.Query, pt.Filters, r, &p)
	if pt.WebhookURL != nil {
		d.WebhookURL = webhookURL(*pt.WebhookURL, "webhook_url", &p)
		if d.WebhookURL == "" {
			d.WebhookSecret = ""
		}
	}
	if v := strings.ToLower(pt.Status); v != "" {
		status = Status(v)
		if status != StatusActive && status != StatusPaused {
			p.add("status", "must be active or paused")
		}
	}
	newFrequency := false
	if f := pt.Filters; f != nil {
		if f.TimeFrame != "" {
			d.TimeFrame = timeFrame(f.TimeFrame, "filters.time_frame", TimeFramesOf(s.Kind), &p)
		}
		if f.MaxResults != 0 {
			d.MaxResults = maxResults(f.MaxResults, "filters.max_results", &p)
		}
		if f.Frequency != "" {
			fr := frequency(f.Frequency, "filters.frequency", &p)
			newFrequency = fr != d.Frequency
			d.Frequency = fr
		}
		if f.JobTitles != nil {
			switch s.Kind {
			case KindPronetProfile:
				p.add("filters.job_titles", "applies to keyword searches, not to profile monitors")
			case KindPronetPosts:
				checkJobTitles("filters.job_titles", f.JobTitles, &p)
			}
			jobTitles = cleanList("filters.job_titles", f.JobTitles, &p)
			d.JobTitles = jobTitles
		}
		onlyPronetPosts := func(field string) {
			if s.Kind != KindPronetPosts {
				p.add(field, "applies to pronet-posts searches only")
			}
		}
		if f.ContentType != "" {
			onlyPronetPosts("filters.content_type")
			d.ContentType = contentType(f.ContentType, "filters.content_type", &p)
		}
		if f.PronetSortBy != "" {
			onlyPronetPosts("filters.pronet_sort_by")
			d.PronetSortBy = pronetSortBy(f.PronetSortBy, "filters.pronet_sort_by", &p)
		}
	}
	if len(p) > 0 {
		return false, p
	}
	if pt.Name != nil {
		s.Name = strings.TrimSpace(*pt.Name)
	}
	if newFrequency {
		next := d.Frequency.Next(s.CreatedAt)
		if s.LastRunAt != nil {
			next = d.Frequency.Next(*s.LastRunAt)
		}
		if next.Before(now) {
			next = now
		}
		s.NextRunAt = &next
	}
	s.Definition = d
	if status != s.Status {
		resumed = status == StatusActive
		s.Status = status
	}
	return resumed, nil
}

// webhookURL checks an optional webhook_url: an absolute http(s) URL with a
// host. Whether its address may be reached is the outbound policy's call,
// made at delivery.
func webhookURL(raw, field string, p *Problems) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || len(raw) > 2048 {
		p.add(field, "must be an absolute http or https URL")
		return ""
	}
	return raw
}
