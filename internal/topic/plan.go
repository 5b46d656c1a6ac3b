package topic

import (
	"errors"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/credits"
)

// The plans below are collection's rules: given what the upstream returned
// and what is stored, what to store, link, charge and block. The store reads
// what they need and applies them in one transaction, deciding nothing.

// HydrationPlan is what a hydration's upstream answer stores.
type HydrationPlan struct {
	// People are the engagers, each once, in the order first listed.
	People []Engager
	// Found are the engagements, each person's first of a kind (the
	// store keeps one per post, person and kind), each with its time set.
	Found []Found
}

// PlanHydration normalises what a hydration read. A reaction carries no
// time: it happened when first seen (h.At).
func PlanHydration(h Hydration) HydrationPlan {
	type key struct{ person, kind string }
	seen := make(map[key]bool, len(h.Found))
	found := make([]Found, 0, len(h.Found))
	people := make([]Engager, len(h.Found))
	for i, f := range h.Found {
		people[i] = f.Person
		k := key{f.Person.URN, f.Type}
		if seen[k] {
			continue
		}
		seen[k] = true
		if f.At.IsZero() {
			f.At = h.At
		}
		found = append(found, f)
	}
	return HydrationPlan{People: UniqueEngagers(people), Found: found}
}

// UniqueEngagers keeps each person's first appearance: one upsert statement
// may not touch a row twice.
func UniqueEngagers(people []Engager) []Engager {
	seen := make(map[string]bool, len(people))
	var out []Engager
	for _, p := range people {
		if !seen[p.URN] {
			seen[p.URN] = true
			out = append(out, p)
		}
	}
	return out
}

// SplitName is a person's first and last name as stored until their
// profile is read: the provider lists engagers by full name only.
func SplitName(full string) (first, last string) {
	first, last, _ = strings.Cut(strings.TrimSpace(full), " ")
	return first, strings.TrimSpace(last)
}

// Candidate is a stored engagement a topic may link, with what its rules
// read: its person's title and headline.
type Candidate struct {
	ID, Person string
	PersonID   int64 // the person's row id (social mapping's key)
	Engaged    int64 // when it happened, Unix milliseconds as stored
	Comment    bool
	Title      string
	Headline   string
	NewPerson  bool // new to the service: no topic lists them yet
}

// LinkPlan is what one topic links of a post's engagements.
type LinkPlan struct {
	// Keep are the engagements to link, in the candidates' order.
	Keep []Candidate
	// Charge is the credits due: one per kept engagement the account has
	// not paid for (that none of its other topics links).
	Charge int64
	// Engagers is each kept person's latest engagement, for the topic's
	// engagers list.
	Engagers []Candidate
}

// PlanLinks plans the topic's links among the unlinked engagements of a
// post: those whose person its job titles keep. paid reads the ids of the
// post's engagements the account already paid for; it is called only when
// something is kept (it costs a query).
func PlanLinks(d Definition, unlinked []Candidate, paid func() ([]string, error)) (LinkPlan, error) {
	var keep []Candidate
	for _, c := range unlinked {
		if d.KeepsEngager(c.Title, c.Headline) {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return LinkPlan{}, nil
	}
	ids, err := paid()
	if err != nil {
		return LinkPlan{}, err
	}
	charge := int64(len(keep))
	if len(ids) > 0 {
		set := make(map[string]bool, len(ids))
		for _, id := range ids {
			set[id] = true
		}
		for _, c := range keep {
			if set[c.ID] {
				charge--
			}
		}
	}
	return LinkPlan{Keep: keep, Charge: charge, Engagers: LatestPerPerson(keep)}, nil
}

// LatestPerPerson keeps each person's latest engagement (the later listed
// of equal times), in the order each person first appears.
func LatestPerPerson(cs []Candidate) []Candidate {
	at := make(map[string]int, len(cs))
	var out []Candidate
	for _, c := range cs {
		i, ok := at[c.Person]
		switch {
		case !ok:
			at[c.Person] = len(out)
			out = append(out, c)
		case c.Engaged >= out[i].Engaged:
			out[i] = c
		}
	}
	return out
}

// DiscoveryPlan is what a discovery stores before linking.
type DiscoveryPlan struct {
	// Posts are the discovered posts in key order: collection locks
	// posts in key order, before topics, so that concurrent transactions
	// cannot deadlock.
	Posts []Post
	// Authors are the posts' members (company pages have none), each once.
	Authors []Engager
}

// PlanDiscovery plans the storing of what a discovery found.
func PlanDiscovery(run DiscoveryRun) DiscoveryPlan {
	posts := slices.Clone(run.Posts)
	slices.SortFunc(posts, func(a, b Post) int { return strings.Compare(a.URN, b.URN) })
	var authors []Engager
	for _, p := range posts {
		if p.Author.URN != "" {
			authors = append(authors, p.Author)
		}
	}
	return DiscoveryPlan{Posts: posts, Authors: UniqueEngagers(authors)}
}

// DiscoveryLinks is what follows a discovery's links.
type DiscoveryLinks struct {
	// BringAlong are newly linked posts another topic's hydration already
	// read: the topic links their stored engagements now.
	BringAlong []string
	// Hydrate are the stored posts not hydrated yet: their first
	// hydration links them to every topic linking them by then.
	Hydrate []string
}

// PlanDiscoveryLinks splits a discovery's posts by what their engagements
// need: linked are those newly linked to the topic, unhydrated those of the
// discovery no hydration has read yet (not "first seen now": a discovery of
// the same millisecond may have stored a post and its hydration be over).
func PlanDiscoveryLinks(linked, unhydrated []string) DiscoveryLinks {
	fresh := make(map[string]bool, len(unhydrated))
	for _, urn := range unhydrated {
		fresh[urn] = true
	}
	var bring []string
	for _, urn := range linked {
		if !fresh[urn] {
			bring = append(bring, urn)
		}
	}
	return DiscoveryLinks{BringAlong: bring, Hydrate: unhydrated}
}

// OutOfCredits is the error a topic blocked for credits shows.
const OutOfCredits = "Out of credits: collection is paused until the account has credits again."

// Blocks reports whether a failed charge (err) blocks the topic: an account
// that cannot pay leaves the topic waiting for credits, with OutOfCredits
// as its error, and its links are made when it can (ResyncTopic). Any other
// error fails the write.
func Blocks(err error) bool {
	return errors.Is(err, credits.ErrInsufficient)
}
