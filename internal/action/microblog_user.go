package action

import (
	"context"
	"strings"
)

// KindMicroblogUser reads a microblog account.
const KindMicroblogUser = "microblog_get_user"

func microblogUserSpec() Spec {
	str := map[string]any{"type": "string"}
	return Spec{
		Kind: KindMicroblogUser, Name: "Get microblog user", Category: CategorySocial,
		// The profile preview reads the same account (and is free).
		Endpoint:    "POST /v1/searches/microblog/profile/preview",
		Description: "Reads a microblog account by username: name, bio, follower counts, profile URL.",
		Inputs: []Input{{Name: "username", Title: "Username", Required: true, Type: TypeString,
			Description: "With or without @."}},
		Outputs: object(map[string]any{
			"id": str, "username": str, "name": str, "description": str, "profile_url": str, "avatar": str,
			"followers_count": map[string]any{"type": "integer"}, "following_count": map[string]any{"type": "integer"},
			"verified": map[string]any{"type": "boolean"},
		}, "id", "username"),
	}
}

// Lookup answers an action's output from one input value through a
// connector (the connectors live outside this package).
type Lookup func(ctx context.Context, value string) (map[string]any, error)

// MicroblogUser is the executor of microblog_get_user.
func MicroblogUser(lookup Lookup) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		name := strings.TrimPrefix(strings.TrimSpace(inputString(call.Inputs, "username")), "@")
		if name == "" {
			return nil, failf(CodeInvalidInput, false, "username is empty")
		}
		return lookup(ctx, name)
	}
}
