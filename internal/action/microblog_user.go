package action

// KindMicroblogUser reads a microblog account.
const KindMicroblogUser = "microblog_get_user"

func microblogUserSpec() Spec {
	str := map[string]any{"type": "string"}
	return Spec{
		Kind: KindMicroblogUser, Name: "Get microblog user", Category: CategorySocial,
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
