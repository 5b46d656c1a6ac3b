package sandbox

import (
	"fmt"
	"strings"
	"unicode"
)

// Person is someone in the world: a pronet profile and a microblog account of the same human.
type Person struct {
	Index       int // roster index, -1 for a person derived from an identifier asked for directly
	FirstName   string
	LastName    string
	Gender      string // male | female
	Title       string
	Role        string   // PDL-style job_title_role
	SubRole     string   // PDL-style job_title_sub_role
	Levels      []string // PDL-style job_title_levels
	Company     Company  // current employer
	City        string
	Country     string
	CountryCode string
	Languages   []string // codes, main first
	Headline    string
	Summary     string
	Positions   []Position // current first, then 1-4 past positions
	Topics      []int      // topic indexes the person posts about

	PronetUsername  string
	PronetID        int64
	PronetFollowers int
	Connections     int
	OpenToWork      bool
	Premium         bool
	Creator         bool

	MicroblogUsername  string
	MicroblogID        string // numeric; encodes the username so /2/users/{id} needs no storage
	Verified           bool
	MicroblogFollowers int
	MicroblogFollowing int
	TweetCount         int
	CreatedYear        int
	CreatedDay         int // day of year the microblog account was created
	ListIDs            []string
}

// Position is one job of a person.
type Position struct {
	Company    Company
	Title      string
	StartYear  int
	StartMonth int
	EndYear    int // 0 for the current position
	EndMonth   int
}

// FullName is first and last name.
func (p Person) FullName() string { return p.FirstName + " " + p.LastName }

// PronetURN is the member urn.
func (p Person) PronetURN() string { return fmt.Sprintf("urn:li:member:%d", p.PronetID) }

// PronetURL is the /in/ profile URL.
func (p Person) PronetURL() string { return "https://www.linkedin.com/in/" + p.PronetUsername + "/" }

// Avatar is the profile picture URL.
func (p Person) Avatar() string {
	return fmt.Sprintf("https://media.licdn.com/dms/image/profile/%d.jpg", p.PronetID)
}

// MicroblogAvatar is the microblog profile image URL.
func (p Person) MicroblogAvatar() string {
	return "https://pbs.twimg.com/profile_images/" + p.MicroblogID + "/avatar_normal.jpg"
}

// Location is "City, Country".
func (p Person) Location() string { return p.City + ", " + p.Country }

func (w *World) buildPeople() {
	w.people = make([]Person, 0, rosterPeople)
	for i := 0; i < rosterPeople; i++ {
		r := newRNG(hashN(w.seed, 0xb0, uint64(i)))
		gender, first := pickFirst(r)
		last := pick(r, lastNames)
		micro := strings.ToLower(first + last)
		if len(micro) > 12 {
			micro = micro[:12]
		}
		for n := 0; ; n++ {
			if _, taken := w.byMicro[micro]; !taken {
				break
			}
			base := strings.ToLower(first + last)
			if len(base) > 10 {
				base = base[:10]
			}
			micro = fmt.Sprintf("%s%02d", base, (int(r.next()%90)+10+n)%100)
		}
		pronet := fmt.Sprintf("%s-%s-%04x", strings.ToLower(first), strings.ToLower(last), r.next()&0xffff)
		for {
			if _, taken := w.byPronet[pronet]; !taken {
				break
			}
			pronet = fmt.Sprintf("%s-%s-%04x", strings.ToLower(first), strings.ToLower(last), r.next()&0xffff)
		}
		p := w.fillPerson(r, gender, first, last, micro, pronet)
		p.Index = i
		w.byMicro[micro] = i
		w.byPronet[pronet] = i
		w.people = append(w.people, p)
	}
}

func pickFirst(r *rng) (gender, first string) {
	if r.chance(0.5) {
		return "female", pick(r, firstNamesF)
	}
	return "male", pick(r, firstNamesM)
}

// derivedPerson builds the person for an identifier outside the roster. key is the
// platform-neutral identity (lower case, '_' for '-'), so the same human answers on both platforms.
func (w *World) derivedPerson(key, micro, pronet string) Person {
	r := newRNG(hashString(w.seed^0xb1, key))
	gender, first := pickFirst(r)
	last := pick(r, lastNames)
	// "jane_doe" reads as Jane Doe: use the identifier's words when it looks like a name.
	parts := strings.FieldsFunc(key, func(c rune) bool { return c == '_' || c == '.' || unicode.IsDigit(c) })
	if len(parts) >= 2 && len(parts[0]) > 1 && len(parts[1]) > 1 {
		first, last = titleCase(parts[0]), titleCase(parts[1])
	}
	p := w.fillPerson(r, gender, first, last, micro, pronet)
	p.Index = -1
	return p
}

func (w *World) fillPerson(r *rng, gender, first, last, micro, pronet string) Person {
	t := titles[r.intn(len(titles))]
	comp := w.companies[r.intn(len(w.companies))]
	ctry := countries[weighted(r, countryWeights)]
	if r.chance(0.6) { // most people live where their company is
		for _, c := range countries {
			if c.Code == comp.CountryCode {
				ctry = c
			}
		}
	}
	langs := []string{ctry.Langs[0]}
	if len(ctry.Langs) > 1 {
		langs = append(langs, ctry.Langs[1])
	} else if r.chance(0.3) {
		langs = append(langs, pick(r, []string{"es", "fr", "de"}))
	}
	tps := append([]int(nil), t.Topics...)
	extra := r.intn(len(topics))
	if !containsInt(tps, extra) {
		tps = append(tps, extra)
	}
	p := Person{
		FirstName:   first,
		LastName:    last,
		Gender:      gender,
		Title:       t.Name,
		Role:        t.Role,
		SubRole:     t.SubRole,
		Levels:      append([]string(nil), t.Levels...),
		Company:     comp,
		City:        pick(r, ctry.Cities),
		Country:     ctry.Name,
		CountryCode: ctry.Code,
		Languages:   langs,
		Topics:      tps,

		PronetUsername:  pronet,
		PronetID:        int64(100000000 + r.intn(899999999)),
		PronetFollowers: 50 + r.heavy(10),
		OpenToWork:      r.chance(0.08),
		Premium:         r.chance(0.25),

		MicroblogUsername:  micro,
		MicroblogID:        encodeUserID(micro),
		Verified:           r.chance(0.15),
		MicroblogFollowers: 10 + r.heavy(10.5),
		MicroblogFollowing: 20 + r.intn(2000),
		TweetCount:         100 + r.heavy(10),
		CreatedYear:        2009 + r.intn(15),
		CreatedDay:         1 + r.intn(365),
	}
	p.Connections = min(30000, 80+p.PronetFollowers/2+r.intn(500))
	p.Creator = p.PronetFollowers > 5000
	p.Headline = fmt.Sprintf("%s at %s | %s", t.Name, comp.Name, topics[tps[0]].Name)
	p.Summary = fmt.Sprintf("%s %s. %s at %s in %s. Posting about %s and %s.", pick(r, summaryOpeners),
		topics[tps[0]].Name, t.Name, comp.Name, p.City, topics[tps[1%len(tps)]].Name, topics[tps[len(tps)-1]].Name)
	for _, ti := range tps {
		p.ListIDs = append(p.ListIDs, listID(ti))
	}
	startYear := careerYear - r.intn(6)
	p.Positions = []Position{{Company: comp, Title: t.Name, StartYear: startYear, StartMonth: 1 + r.intn(12)}}
	end := startYear
	for n := r.between(1, 4); n > 0; n-- {
		pc := w.companies[r.intn(len(w.companies))]
		dur := 1 + r.intn(4)
		p.Positions = append(p.Positions, Position{
			Company: pc, Title: titles[r.intn(len(titles))].Name,
			StartYear: end - dur, StartMonth: 1 + r.intn(12), EndYear: end, EndMonth: 1 + r.intn(12),
		})
		end -= dur
	}
	return p
}

// listID is the microblog list that collects people posting about a topic (list: operator).
func listID(topic int) string { return fmt.Sprintf("17%017d", 1000+topic) }

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
