package providertest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// fixtures are the identifiers of the world the cases read: picked once, with the contract
// client, so that each case has something to page through.
type fixtures struct {
	user      string // a member with more than one page of posts
	company   string // a company page with posts
	post      string // one of user's posts with several pages of comments and reactions
	quietPost string // one of user's posts without comments; "" when there is none
	keyword   string // a word more than one page of the last day's posts contain
	title     string // the current job title of an author of a keyword post
	member    string // urn:li:member:<id> that posts of the last week mention
	org       string // numeric id of a company that posts of the last day mention
	content   string // a content type some keyword posts of the last week have
}

// noMatch is a keyword no post contains.
const noMatch = "zqxvwkj"

func pickFixtures(t *testing.T, client *pronet.Client, w *sandbox.World) fixtures {
	t.Helper()
	ctx := t.Context()
	var fx fixtures
	var posts []pronet.Post
	for _, p := range w.Roster() {
		first, next := oracle2[[]pronet.Post, string](t)(client.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: p.PronetUsername}))
		if next != "" {
			fx.user, posts = p.PronetUsername, first
			break
		}
	}
	if fx.user == "" {
		t.Fatal("providertest: no member with more than a page of posts")
	}
	for _, c := range w.Companies() {
		if len(oracle[[]pronet.Post](t)(client.CompanyPosts(ctx, c.Slug))) > 1 {
			fx.company = c.Slug
			break
		}
	}
	for _, p := range posts {
		switch {
		case p.CommentsCount == 0 && fx.quietPost == "":
			fx.quietPost = p.URN
		case p.CommentsCount > 12 && p.CommentsCount < 60 && p.TotalReactionCount > 60 && fx.post == "":
			fx.post = p.URN
		}
	}
	fx.keyword = pickKeyword(t, ctx, client, w)
	hits := oracle[pronet.SearchPage](t)(client.SearchPosts(ctx, pronet.SearchParams{Keywords: fx.keyword, DatePosted: pronet.DatePastDay}))
	for _, p := range hits.Items {
		if p.Company.URN != "" || fx.title != "" {
			continue
		}
		if prof := oracle[pronet.Profile](t)(client.Profile(ctx, p.Author.Username)); len(prof.Position) > 0 {
			fx.title = prof.Position[0].Title
		}
	}
	for _, m := range w.MostMentioned() {
		q := pronet.SearchParams{MentionsMember: []string{m.PronetURN()}, DatePosted: pronet.DatePastWeek}
		if oracle[pronet.SearchPage](t)(client.SearchPosts(ctx, q)).Total > 0 {
			fx.member = m.PronetURN()
			break
		}
	}
	fx.org = pickOrg(t, ctx, client, w)
	for _, ct := range []string{"videos", "photos", "documents", "collaborativeArticles"} {
		q := pronet.SearchParams{Keywords: fx.keyword, DatePosted: pronet.DatePastWeek, ContentType: ct}
		if oracle[pronet.SearchPage](t)(client.SearchPosts(ctx, q)).Total > 0 {
			fx.content = ct
			break
		}
	}
	if fx.company == "" || fx.post == "" || fx.title == "" || fx.member == "" || fx.org == "" || fx.content == "" {
		t.Fatalf("providertest: the world lacks a fixture: %+v", fx)
	}
	return fx
}

// pickKeyword finds a topic keyword that two to six pages of the last day's posts contain.
func pickKeyword(t *testing.T, ctx context.Context, client *pronet.Client, w *sandbox.World) string {
	t.Helper()
	for i := range w.Topics() {
		for _, kw := range w.TopicKeywords(i) {
			if len(kw) < 3 || kw[0] == '#' {
				continue
			}
			n := oracle[pronet.SearchPage](t)(client.SearchPosts(ctx, pronet.SearchParams{Keywords: kw, DatePosted: pronet.DatePastDay})).Total
			if n > pronet.SearchPageSize && n <= 6*pronet.SearchPageSize {
				return kw
			}
		}
	}
	t.Fatal("providertest: no keyword with two to six pages of posts in a day")
	return ""
}

// pickOrg finds a company that one of the last day's public posts mentions.
func pickOrg(t *testing.T, ctx context.Context, client *pronet.Client, w *sandbox.World) string {
	t.Helper()
	const hour = int64(time.Hour / time.Millisecond)
	for b := Now().UnixMilli()/hour - 1; b > Now().UnixMilli()/hour-24; b-- {
		for i := range 10 {
			p := w.PublicPronetPost(b, i)
			if p.MentionsCompany == nil {
				continue
			}
			id := strconv.FormatInt(int64(p.MentionsCompany.ID), 10)
			q := pronet.SearchParams{MentionsOrganization: []string{id}, DatePosted: pronet.DatePastDay}
			if oracle[pronet.SearchPage](t)(client.SearchPosts(ctx, q)).Total > 0 {
				return id
			}
		}
	}
	return ""
}
