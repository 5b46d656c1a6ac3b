package action

import (
	"context"
	"strings"
)

// KindPronetPostComments reads the comments of a pronet post.
const KindPronetPostComments = "pronet_get_post_comments"

func pronetPostCommentsSpec() Spec {
	str := map[string]any{"type": "string"}
	return Spec{
		Kind: KindPronetPostComments, Name: "Get pronet post comments", Category: CategorySocial, CreditCost: 1,
		Description: "Reads the comments of a pronet post: who commented, their headline and what they wrote.",
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
