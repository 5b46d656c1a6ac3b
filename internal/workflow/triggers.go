package workflow

import (
	"slices"

	"github.com/trawlhq/trawl/internal/action"
)

// TriggerInput is an input of a trigger kind, in the catalogue's shape
// (the hosted API's InputField).
type TriggerInput struct {
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Required    bool             `json:"required"`
	Type        action.InputType `json:"type"`
	EnumOptions []string         `json:"enumOptions,omitempty"`
	Description string           `json:"description,omitempty"`
	Default     any              `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
}

// TriggerSpec is a trigger kind's catalogue entry: what it takes and the
// payload it gives an execution (what {{ trigger.… }} templates read).
type TriggerSpec struct {
	Kind        string         `json:"kind"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	CreditCost  int64          `json:"creditCost" doc:"Credits an execution costs for its trigger: 0; its steps cost what their endpoints cost."`
	Inputs      []TriggerInput `json:"inputs"`
	Outputs     map[string]any `json:"outputs" doc:"A JSON Schema of the trigger's payload, read in templates as trigger.<field>."`
}

// TriggerCatalogue lists every trigger kind with its inputs and payload.
// Validation reads the inputs from here (validate.go), and a test checks
// that every field of each kind's payloads is listed, so the catalogue
// cannot drift from the triggers.
func TriggerCatalogue() []TriggerSpec {
	return []TriggerSpec{
		{Kind: TriggerNewPost, Name: "New post",
			Description: "A saved search collected a new result: the workflow's linked search (search_id), or any search of the account when it links none.",
			Inputs:      []TriggerInput{}, Outputs: newPostOutputs()},
		{Kind: TriggerEngagement, Name: "Topic engagement",
			Description: "A topic linked a new engagement: a person reacted to or commented on one of its posts.",
			Inputs: []TriggerInput{{Name: "topic_id", Title: "Topic", Required: true, Type: action.TypeString,
				Description: "The topic (GET /v1/topics) whose new engagements start executions.", Placeholder: "01938f2e-…"}},
			Outputs: engagementOutputs()},
		{Kind: TriggerWebhook, Name: "Webhook",
			Description: "An HTTP POST to the workflow's webhook_url (Standard Webhooks signed when verify_signature is true).",
			Inputs: []TriggerInput{{Name: "verify_signature", Title: "Verify signature", Type: action.TypeBoolean, Default: false,
				Description: "Refuse deliveries without a valid Standard Webhooks signature made with the workflow's webhook_secret."}},
			Outputs: object("The delivered JSON: an object's members are the payload's; any other value is its body member.", nil, true)},
		{Kind: TriggerScheduled, Name: "Schedule",
			Description: "A cron schedule: one execution per occurrence; after downtime, only the latest missed one.",
			Inputs: []TriggerInput{
				{Name: "cron", Title: "Cron", Required: true, Type: action.TypeString, Placeholder: "0 9 * * 1-5",
					Description: "A 5-field cron expression: minute hour day-of-month month day-of-week."},
				{Name: "timezone", Title: "Time zone", Type: action.TypeString, Default: "UTC", Placeholder: "Europe/Berlin",
					Description: "The IANA time zone the cron is read in."}},
			Outputs: object("", merge(map[string]any{
				"scheduled_at": str("The occurrence, RFC 3339 UTC."),
				"fired_at":     str("When it fired, RFC 3339 UTC."),
			}, testOverrides()), false)},
	}
}

// TriggerInputNames lists the inputs a trigger kind takes; known is false
// for a kind that is not in the catalogue.
func TriggerInputNames(kind string) (names []string, known bool) {
	i := slices.IndexFunc(TriggerCatalogue(), func(t TriggerSpec) bool { return t.Kind == kind })
	if i < 0 {
		return nil, false
	}
	for _, in := range TriggerCatalogue()[i].Inputs {
		names = append(names, in.Name)
	}
	return names, true
}

func newPostOutputs() map[string]any {
	nullableNum := func(d string) map[string]any {
		return map[string]any{"type": []string{"number", "null"}, "description": d}
	}
	return object("", map[string]any{
		"search_id":   str("The saved search that collected it (\"\" in a sample)."),
		"author_url":  str("The author's profile URL."),
		"text":        str("The post's text."),
		"post_url":    str("The post's URL."),
		"likes":       num("Likes when collected."),
		"comments":    num("Comments (replies) when collected."),
		"date_posted": str("When it was published, RFC 3339 UTC."),
		"source":      str("Where it comes from: microblog or pronet."),
		"result": object("The result as GET /v1/searches/{id}/results shows it.", map[string]any{
			"id": str("The platform's id of the post."), "source": str("microblog or pronet."),
			"author": object("", map[string]any{"name": str(""), "username": str(""), "profile_url": str(""),
				"avatar": str(""), "followers": nullableNum("")}, false),
			"content": object("", map[string]any{"text": str(""), "url": str(""),
				"media": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, false),
			"engagement": object("", map[string]any{"likes": nullableNum(""), "comments": nullableNum(""),
				"shares": nullableNum("")}, false),
			"published_at": str(""), "collected_at": str(""),
		}, false),
	}, false)
}

func engagementOutputs() map[string]any {
	free := func(d string) map[string]any { return object(d, nil, true) }
	return object("", map[string]any{
		"id":                 str("The engagement's id."),
		"topic_id":           str("The topic that linked it."),
		"prospect_id":        str("The person's pronet URN."),
		"pronet_post_id":     str("The URN of the post engaged with."),
		"discovery_interval": str("Which collection found it: initial, rediscovery, day1, day3 or day5."),
		"created":            str("When it was linked, RFC 3339 UTC."),
		"prospect": object("The person who engaged.", map[string]any{
			"full_name": str(""), "pronet_url": str(""), "job_title": str(""), "company": str(""),
			"company_domain": str(""), "pronet_urn": str(""),
		}, false),
		"source":     str("Test runs only: the source override's label."),
		"engagement": object("", map[string]any{"type": str("like (any reaction) or comment."), "text": str("A comment's text.")}, false),
		"post": object("The post engaged with, as GET /v1/topics/{id}/posts shows it.", map[string]any{
			"urn": str(""), "entityType": str(""), "text": str(""), "postUrl": str(""), "postedAt": str(""),
			"postedDate": str(""), "postedDateTimestamp": num("Milliseconds since 1970."),
			"totalReactionCount": num(""), "likeCount": num(""), "empathyCount": num(""), "praiseCount": num(""),
			"appreciationCount": num(""), "InterestCount": num(""), "funnyCount": num(""), "commentsCount": num(""),
			"repostsCount": num(""), "reposted": map[string]any{"type": "boolean"},
			"author": free("The author."), "company": free("The company page that published it."),
			"article": free("The shared link."), "video": map[string]any{"type": "array"}, "image": map[string]any{"type": "array"},
			"document": free("The attached document."), "resharedPost": free("The post a reshare shares."),
		}, false),
	}, false)
}

// testOverrides are the members a test run's overrides set at the top
// level of a payload that has no place of its own for them.
func testOverrides() map[string]any {
	o := map[string]any{}
	for _, name := range []string{"author_url", "text", "post_url", "date_posted", "source"} {
		o[name] = str("Test runs only: the " + name + " override.")
	}
	o["likes"], o["comments"] = num("Test runs only: the likes override."), num("Test runs only: the comments override.")
	return o
}

func merge(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// object is a JSON Schema object; open allows members beyond props (a
// schema without props is free-form).
func object(description string, props map[string]any, open bool) map[string]any {
	o := map[string]any{"type": "object"}
	if description != "" {
		o["description"] = description
	}
	if props != nil {
		o["properties"] = props
	}
	if open {
		o["additionalProperties"] = true
	}
	return o
}

func str(d string) map[string]any { return typed("string", d) }
func num(d string) map[string]any { return typed("number", d) }

func typed(t, d string) map[string]any {
	o := map[string]any{"type": t}
	if d != "" {
		o["description"] = d
	}
	return o
}

// UnlistedFields lists the paths of a payload's fields that the trigger
// kind's outputs do not declare (an object schema without properties is
// free-form and declares any).
func UnlistedFields(kind string, payload map[string]any) []string {
	for _, t := range TriggerCatalogue() {
		if t.Kind == kind {
			var out []string
			unlisted(t.Outputs, payload, "", &out)
			slices.Sort(out)
			return out
		}
	}
	return []string{kind}
}

func unlisted(schema map[string]any, v map[string]any, at string, out *[]string) {
	props, ok := schema["properties"].(map[string]any)
	if !ok {
		return
	}
	for k, member := range v {
		sub, listed := props[k].(map[string]any)
		if !listed {
			*out = append(*out, at+k)
			continue
		}
		if inner, isObj := member.(map[string]any); isObj {
			unlisted(sub, inner, at+k+".", out)
		}
	}
}
