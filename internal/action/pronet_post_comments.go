package action

import (
	"context"
	"strings"
)

// KindPronetPostComments reads the comments of a pronet post.
const KindPronetPostComments = "pronet_get_post_comments"

// MaxLookupItems is the spec's cap on the items (and so the credits) of
// one live lookup, whether an endpoint or a step makes it.
const MaxLookupItems = 50

func pronetPostCommentsSpec() Spec {
	str := map[string]any{"type": "string"}
	return Spec{
		Kind: KindPronetPostComments, Name: "Get pronet post comments", Category: CategorySocial,
		CreditCost: 1, CreditPer: PerItem, CreditItems: "comments", Endpoint: "POST /v1/company/comments",
		Description: "Reads the first page of comments of a pronet post (at most 50): who commented, their headline and what they wrote. 1 credit per comment, as POST /v1/company/comments.",
		Inputs: []Input{{Name: "post_urn", Title: "Post", Required: true, Type: TypeString,
			Description: "urn:li:activity:…, the numeric id or the post URL."}},
		Outputs: object(map[string]any{
			"comments": map[string]any{"type": "array", "items": object(map[string]any{
				"text": str, "created_at": str, "author_name": str, "author_headline": str,
				"author_url": str, "author_urn": str,
			})},
			"count": map[string]any{"type": "integer"},
		}, "comments", "count"),
	}
}

// PronetPostComments is the executor of pronet_get_post_comments.
func PronetPostComments(lookup Lookup) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		post := strings.TrimSpace(inputString(call.Inputs, "post_urn"))
		if post == "" {
			return nil, failf(CodeInvalidInput, false, "post_urn is empty")
		}
		return lookup(ctx, post)
	}
}
