package seed

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/topic"
)

// TopicData makes realistic pronet posts (about 1.5 KB of JSON each) and
// people (profile read, firmographics filled) for benchmarks. Post n and
// person n are the same whenever they are asked for; distinct n give
// distinct URNs.
type TopicData struct {
	base  time.Time
	texts []string
}

// NewTopicData returns the generator of posts published from base on, one
// a minute.
func NewTopicData(base time.Time) TopicData {
	words := strings.Fields(`we just closed our series b to help revenue teams find the people already talking
		about their category; huge thanks to our customers, our investors and the team that shipped
		twelve releases this quarter #sales #revops #startups #hiring`)
	texts := make([]string, 53)
	for i := range texts {
		var sb strings.Builder
		for j := 0; sb.Len() < 500+i*7; j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[(i*5+j)%len(words)])
		}
		texts[i] = sb.String()
	}
	return TopicData{base: base, texts: texts}
}

// PostURN is the URN of post n: a 19-digit activity id, larger for
// larger n.
func PostURN(n int) string {
	return strconv.FormatInt(7_300_000_000_000_000_000+int64(n)*8192, 10)
}

// PersonURN is the URN of person n: a member id shaped like the
// pronet's ("ACoAA…", 39 characters), in no particular order.
func PersonURN(n int) string {
	var b [32]byte
	x := uint64(n)
	for i := range 4 {
		binary.BigEndian.PutUint64(b[i*8:], Mix(x+uint64(i)<<62))
	}
	// The first 8 bytes are a bijection of n: distinct n, distinct URNs.
	return "ACoAA" + base64.RawURLEncoding.EncodeToString(b[:])[:34]
}

// Mix is SplitMix64's step: a bijective mix of 64 bits (Steele, Lea and
// Flood), for the generators' pseudo-random numbers.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

var (
	firstNames = []string{"Ana", "Ben", "Chloé", "Dev", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi", "Luca", "Maya", "Noah", "Olga", "Priya"}
	lastNames  = []string{"Silva", "Okafor", "Müller", "Tanaka", "Kowalski", "Haddad", "Nguyen", "García", "Johansson", "Rossi", "Patel", "Dubois", "Kim"}
	titles     = []string{"Head of Sales", "Account Executive", "VP Marketing", "Founder & CEO", "Software Engineer", "RevOps Manager", "Product Manager", "SDR", "CTO", "Growth Lead"}
	companies  = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Tyrell", "Soylent", "Cyberdyne"}
	sizes      = []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"}
	industries = []string{"Software Development", "Financial Services", "Marketing Services", "IT Services and IT Consulting", "Staffing and Recruiting"}
	countries  = []string{"United States", "United Kingdom", "Germany", "France", "India", "Brazil", "Canada", "Netherlands"}
)

// Post returns post n, published n minutes after base.
func (g TopicData) Post(n int) topic.Post {
	urn := PostURN(n)
	posted := g.base.Add(time.Duration(n) * time.Minute)
	author := g.Person(n % 7919)
	rec := pronet.Post{
		Text:                g.texts[n%len(g.texts)],
		EntityType:          "post",
		PostURL:             "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/",
		PostedAt:            "1d",
		PostedDate:          posted.Format(time.RFC3339),
		PostedDateTimestamp: posted.UnixMilli(),
		URN:                 urn,
		TotalReactionCount:  40 + n%700,
		LikeCount:           30 + n%500,
		EmpathyCount:        n % 40,
		PraiseCount:         n % 30,
		AppreciationCount:   n % 20,
		InterestCount:       n % 10,
		FunnyCount:          n % 5,
		CommentsCount:       n % 90,
		RepostsCount:        n % 25,
		Author: pronet.PostAuthor{
			ID: int64(100_000 + n%7919), FirstName: author.FirstName, LastName: author.LastName, Headline: author.Headline,
			Username: author.Username, URL: author.PronetURL, URN: author.URN,
			ProfilePictures: []pronet.Picture{{Width: 100, Height: 100, URL: author.Avatar}, {Width: 400, Height: 400, URL: author.Avatar + "?s=400"}},
		},
		Image: []pronet.Image{{URL: "https://media.licdn.com/dms/image/v2/D4E22AQ" + urn + "/feedshare-shrink_800/0/" + strconv.Itoa(n)}},
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err) // plain values: cannot fail
	}
	return topic.Post{URN: urn, PostedAt: posted, Record: raw}
}

// Person returns person n with their profile read.
func (g TopicData) Person(n int) topic.Profile {
	first, last := firstNames[n%len(firstNames)], lastNames[(n/7)%len(lastNames)]
	username := strings.ToLower(first+"-"+last) + "-" + strconv.Itoa(n)
	title, company := titles[(n/3)%len(titles)], companies[(n/11)%len(companies)]
	followers := int64(50 + n%20_000)
	domain := strings.ToLower(strings.ReplaceAll(company, " ", "")) + ".com"
	return topic.Profile{
		URN: PersonURN(n), Username: username, FullName: first + " " + last, FirstName: first, LastName: last,
		Headline: title + " at " + company + " | helping teams grow", JobTitle: title, Company: company,
		CompanyDomain: domain, CompanySize: sizes[n%len(sizes)], Industry: industries[n%len(industries)],
		Country: countries[n%len(countries)], Followers: &followers,
		Avatar:    "https://media.licdn.com/dms/image/v2/C4D03AQ" + strconv.Itoa(n) + "/profile-displayphoto-shrink_100_100/0/",
		PronetURL: "https://www.linkedin.com/in/" + username,
	}
}
