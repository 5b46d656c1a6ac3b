// Package sandbox is Trawl's deterministic synthetic world and its servers of the upstream
// protocols: X API v2 (microblog), the pronet provider contract (docs/providers.md) and People
// Data Labs v5 person enrichment. Trawl starts it on loopback when an upstream URL is unset, and
// the real connectors talk to it, so the same code runs with and without credentials.
//
// The world is a pure function of the seed and the clock: same seed and same now give
// byte-identical answers. A fixed roster (2,000 people at 300 companies) is built from the seed;
// everything else is derived by hashing (seed, identifier), nothing is stored. Posts appear as
// time passes (24 public microblog posts and 10 public pronet posts per hour, plus every account's
// own posts every few hours) and exist only once now reaches their time. Engagement grows as
// final*(1-exp(-age/36h)); reactors and commenters are the first n(t) of a per-post permutation
// of the roster, so engager lists only grow. Post ids and urns are snowflakes (time in ms << 22),
// so since_id watermarks work, each with its platform's epoch: tweet ids count from X's epoch,
// pronet activity and comment ids from the Unix epoch, so a real activity id copied from a post
// URL is a post of its real date. Microblog user ids encode the username.
//
// Any well-formed identifier asked for directly (microblog username or user id, pronet username,
// company slug, post urn, PDL profile URL) answers with data derived from it, except:
//
//   - missing-… (or missing_…): the upstream's not-found answer (X: 200 with a "Not Found
//     Error" in errors; pronet: 404; PDL: 404 not_found).
//   - error-… (or error_…): an upstream failure (X: 503; pronet and PDL: 500).
//   - ratelimited-…: the upstream's rate-limit answer (X: 429; pronet: 429 with Retry-After: 2; PDL: 429).
//
// The pronet protocols (the contract, and the vendors' own) also know, so that a connector can be
// tried on the vendor input it must survive:
//
//   - throttled-…: 429 without Retry-After.
//   - malformed-…: the answer about the rest of the identifier, with a list's first item replaced
//     by a value of the wrong type ("<html>"), or on a single object the post urn or profile id
//     given as an object {}.
//   - sparse-…: the answer about the rest of the identifier without the optional fields
//     (engagement counts, pictures, headline, attachments, the ms timestamp beside a date
//     string): ids, names, URLs, text and dates remain. sparse-7301234567890123456 is that post.
//
// In an X search query the rules apply to operator values and mentions (from:error-x → 503); in a
// pronet keyword search to any word (error-x → 500; malformed-crm searches crm and answers it
// malformed). Keywords are otherwise ordinary text.
//
// Credentials: any non-empty bearer token (X), x-api-key (pronet) or X-Api-Key / api_key (PDL)
// is accepted; a missing one gets the upstream's 401, and so does a pronet key that starts with
// "invalid".
//
// Sandbox choices beside the protocols: search/recent covers 7 days and search/all defaults to
// 30 days (relevancy ranks at most the 14 days before end_time; a recency page scans at most 7
// days of posts and then ends early with a next_token, as X's sparse pages do); relevancy is
// final engagement, so pages are stable; timelines reach back 30 days from their end (pronet
// profile and company posts 60 days, pronet search at most 30 days).
// Queries may be up to 4,096 characters (X's Pro tier). Pronet page sizes: posts 50, search 10,
// comments 10, reactions 50; comments and reactions are listed oldest first so pages are stable.//
// The same world is also served in two vendors' protocols, so that the pronet adapters run
// offline: HarvestAPI's REST API under /harvestapi (GET /linkedin/post-search, profile-posts,
// company-posts, post, post-comments, post-reactions, profile and test; X-API-KEY; the envelope
// with element, or elements and pagination; pages of 50 search posts, 20 profile or company posts,
// 20 comments, 100 reactions; page or paginationToken; a page past the end is empty, and only the
// search stops at page 100), and Apify's API v2 under /apify running
// HarvestAPI's actors (harvestapi~linkedin-post-search, -profile-posts, -post-comments,
// -post-reactions, -profile; run-sync-get-dataset-items, runs polled with waitForFinish, abort,
// dataset items, users/me). Items carry the HarvestAPI shapes (PostShort, PostComment,
// PostReaction, Profile) with LinkedIn's id and URL forms (ACoAA… profile ids, /posts/…-activity-…
// URLs). Runs live in a table of at most 1,000 on the Sandbox; a run reads READY when started,
// RUNNING at its first status read and SUCCEEDED (FAILED for an error-… input) from the second.
// Both add fault prefixes: throttled-… (429 without Retry-After), malformed-… (a list's first
// item is a string, a single object's id an object) and sparse-… (optional fields left out); a
// key or token starting with "invalid" gets a 401. In an actor input missing-… pushes no item,
// error-… fails the run (run-sync answers 400 run-failed) and ratelimited-/throttled- get a 429.
//
// HubSpot's API is served under /hubspot for the integrations' connections (docs/integrations.md):
// GET /account-info/v3/details answers HubSpot's account details (a portalId derived from the
// token) for any bearer token, and HubSpot's 401 error body ({status: "error", message,
// correlationId, category: INVALID_AUTHENTICATION}) for a missing token or one that starts with
// "invalid".
//
// At debug level each protocol logs what a client asked for, which is how the end-to-end tests
// see a run's upstream calls: "sandbox pronet request" and "sandbox harvestapi request" (path,
// query), "sandbox apify request" (method, path, query without a token) and "sandbox apify run"
// (the actor and its input as sent).
package sandbox
