package action

import "net/mail"

// KindSendEmail sends an email through the account's SMTP server.
const KindSendEmail = "send_email"

func sendEmailSpec() Spec {
	return Spec{
		Kind: KindSendEmail, Name: "Send email", Category: CategoryMessaging,
		Description: "Sends an email through an SMTP server. The server is an account secret holding an SMTP URL: smtp://user:password@host:587?from=sender@example.com (STARTTLS) or smtps://… (TLS).",
		Inputs: []Input{
			{Name: "smtp", Title: "SMTP secret", Required: true, Type: TypeString, Secret: true, Description: "Name of the secret holding the SMTP URL."},
			{Name: "to", Title: "To", Required: true, Type: TypeStringArray},
			{Name: "subject", Title: "Subject", Required: true, Type: TypeString},
			{Name: "text", Title: "Text body", Type: TypeString},
			{Name: "html", Title: "HTML body", Type: TypeString},
		},
		Check: func(in map[string]any) []Problem {
			var out []Problem
			_, text := in["text"]
			_, html := in["html"]
			if !text && !html {
				out = append(out, problemf("text", "is required unless html is given"))
			}
			if to, ok := in["to"].([]any); ok {
				if len(to) == 0 {
					out = append(out, problemf("to", "must name at least one address"))
				}
				for _, a := range to {
					if s, ok := a.(string); ok && !isTemplate(s) {
						if _, err := mail.ParseAddress(s); err != nil {
							out = append(out, problemf("to", "%q is not an email address", s))
						}
					}
				}
			}
			return out
		},
		Outputs: object(map[string]any{
			"message_id": typed("string", "The Message-ID header sent."),
			"accepted":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		}, "message_id", "accepted"),
	}
}
