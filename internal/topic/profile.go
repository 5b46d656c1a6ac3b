package topic

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// CompileKeywords writes a topic's keywords in the provider's boolean search
// syntax: any of keywords, all of keywords_and, none of keywords_not, each
// phrase quoted: ("a" OR "b") AND "c" NOT "d".
func CompileKeywords(d Definition) string {
	var parts []string
	if len(d.Keywords) > 0 {
		any := make([]string, len(d.Keywords))
		for i, k := range d.Keywords {
			any[i] = quote(k)
		}
		group := strings.Join(any, " OR ")
		if len(any) > 1 {
			group = "(" + group + ")"
		}
		parts = append(parts, group)
	}
	for _, k := range d.KeywordsAnd {
		parts = append(parts, quote(k))
	}
	out := strings.Join(parts, " AND ")
	for _, k := range d.KeywordsNot {
		out += " NOT " + quote(k)
	}
	return out
}

func quote(k string) string {
	return `"` + strings.ReplaceAll(strings.TrimSpace(k), `"`, "") + `"`
}

// ProfileFrom reads what mapping filters on from a pronet profile: the
// current position's title and company, the company's domain, size bucket
// and industry, the country and the follower count.
func ProfileFrom(urn string, p pronet.Profile) Profile {
	out := Profile{URN: urn, Username: p.Username, FirstName: p.FirstName, LastName: p.LastName,
		FullName: strings.TrimSpace(p.FirstName + " " + p.LastName), Headline: p.Headline, Avatar: p.ProfilePicture,
		Country: strings.ToUpper(p.Geo.CountryCode)}
	if p.Username != "" {
		out.PronetURL = pronet.ProfileURL(p.Username)
	}
	followers := int64(p.FollowerCount)
	out.Followers = &followers
	if len(p.Position) > 0 {
		cur := p.Position[0]
		out.JobTitle, out.Company, out.Industry, out.CompanyLogo = cur.Title, cur.CompanyName, cur.CompanyIndustry, cur.CompanyLogo
		out.CompanyDomain = Domain(cur.CompanyWebsite)
		out.CompanySize = SizeBucket(cur.CompanyStaffCountRange)
	}
	return out
}

// Domain is the host of a website without "www.", lower case; "" when the
// website has none.
func Domain(website string) string {
	w := strings.TrimSpace(website)
	if w == "" {
		return ""
	}
	if !strings.Contains(w, "://") {
		w = "https://" + w
	}
	u, err := url.Parse(w)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// CompanySizes are the spec's company size buckets.
func CompanySizes() []string {
	return []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"}
}

var firstNumber = regexp.MustCompile(`\d[\d,.]*`)

// SizeBucket maps a provider's staff-count range ("51-200", "51 to 200
// employees", "10,001+") to the spec's bucket holding its lower end; "" when
// it holds no number.
func SizeBucket(staffRange string) string {
	m := firstNumber.FindString(staffRange)
	if m == "" {
		return ""
	}
	n, err := strconv.Atoi(strings.NewReplacer(",", "", ".", "").Replace(m))
	if err != nil {
		return ""
	}
	bounds := []int{10, 50, 200, 500, 1000, 5000, 10000}
	for i, b := range bounds {
		if n <= b {
			return CompanySizes()[i]
		}
	}
	return "10001+"
}
