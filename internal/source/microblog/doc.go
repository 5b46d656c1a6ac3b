// Package microblog is the client of the X API v2 subset Trawl uses: recent and full-archive
// search, user lookup by username and a user's timeline. It maps tweets to source.Item.
package microblog
