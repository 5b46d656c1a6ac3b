// Package query turns a saved-search body into one X API v2 search query string (Compile) and
// parses and evaluates X query strings against posts (Parse, Expr.Match), so that the sandbox
// answers searches the way X would.
//
// It follows X's "Build a query" and "Search operators" pages. Decisions where they are silent:
//
//   - Parse rejects what X rejects: unknown operators, a query whose every OR branch lacks a
//     positive standalone clause (keyword, phrase, #, @, $, from:, to:, url:, retweets_of:,
//     conversation_id:, list:, context:, place_country:), is:nullcast without '-', and a second
//     list:. It accepts a negated group, -(a OR b), which X discourages but evaluates.
//   - A bare word is an operator when the text before its first ':' is ASCII letters or '_'
//     (so "http://x" is an unknown operator and must be quoted; "10:30" is a keyword). Operator
//     names are case-insensitive; OR must be upper case. Inside quotes, \" and \\ are escapes.
//   - Keywords and phrases match whole tokens of the post text: text is split on punctuation,
//     symbols and spaces, each emoji is a token, and case and diacritics are ignored. A needle
//     made only of punctuation ("?") falls back to a case-insensitive substring match.
//   - #, @ and $ match the post's entities exactly (ignoring case). When Post.Hashtags or
//     Post.Mentions is nil they are taken from the text; cashtags always are.
//   - has:links also matches native images and videos (X: "links and media"), has:geo means a
//     place country is set, is:nullcast never matches. has:video_link and has:media_link are
//     accepted as aliases and written back as has:videos and has:media.
package query
