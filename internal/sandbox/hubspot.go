package sandbox

import (
	"fmt"
	"net/http"
	"strings"
)

// HubSpot's API, the subset Trawl's connections use
// (docs/integrations/hubspot.md): GET /account-info/v3/details answers the
// portal of any bearer token; a missing token, or one starting with
// "invalid", gets HubSpot's 401. The CRM (objects, search, associations,
// properties) is hubspot_crm.go's.

// hubSpotAccount is the documented body of GET /account-info/v3/details.
type hubSpotAccount struct {
	PortalID              int64    `json:"portalId"`
	AccountType           string   `json:"accountType"`
	TimeZone              string   `json:"timeZone"`
	CompanyCurrency       string   `json:"companyCurrency"`
	AdditionalCurrencies  []string `json:"additionalCurrencies"`
	UTCOffset             string   `json:"utcOffset"`
	UTCOffsetMilliseconds int64    `json:"utcOffsetMilliseconds"`
	UIDomain              string   `json:"uiDomain"`
	DataHostingLocation   string   `json:"dataHostingLocation"`
}

// hubSpotError is HubSpot's error body.
type hubSpotError struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	CorrelationID string `json:"correlationId"`
	Category      string `json:"category"`
}

func (s *Sandbox) hubSpotHandler() http.Handler {
	mux := http.NewServeMux()
	newHubSpotCRM(s.now).routes(mux)
	mux.HandleFunc("GET /account-info/v3/details", func(w http.ResponseWriter, r *http.Request) {
		token, ok := hubSpotToken(w, r)
		if !ok {
			return
		}
		// The portal is a function of the token: a token always names the same portal.
		writeJSON(w, http.StatusOK, hubSpotAccount{
			PortalID:             hubSpotPortalID(token),
			AccountType:          "STANDARD",
			TimeZone:             "US/Eastern",
			CompanyCurrency:      "USD",
			AdditionalCurrencies: []string{"EUR", "GBP"},
			UTCOffset:            "-05:00", UTCOffsetMilliseconds: -18_000_000,
			UIDomain:            "app.hubspot.com",
			DataHostingLocation: "na1",
		})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, hubSpotError{Status: "error", Message: "Resource not found",
			CorrelationID: hubSpotCorrelationID(r.URL.Path), Category: "OBJECT_NOT_FOUND"})
	})
	return mux
}

// hubSpotToken returns the request's bearer token, or answers HubSpot's 401.
func hubSpotToken(w http.ResponseWriter, r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	token = strings.TrimSpace(token)
	switch {
	case !ok || token == "":
		writeJSON(w, http.StatusUnauthorized, hubSpotError{Status: "error",
			Message:       "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview",
			CorrelationID: hubSpotCorrelationID(r.URL.Path), Category: "INVALID_AUTHENTICATION"})
		return "", false
	case strings.HasPrefix(token, "invalid"):
		writeJSON(w, http.StatusUnauthorized, hubSpotError{Status: "error",
			Message:       "The OAuth token used to make this call expired or is invalid.",
			CorrelationID: hubSpotCorrelationID(token), Category: "INVALID_AUTHENTICATION"})
		return "", false
	}
	return token, true
}

// hubSpotCorrelationID is a UUID-shaped id derived from seed.
func hubSpotCorrelationID(seed string) string {
	a, b := hashString(1, seed), hashString(2, seed)
	return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(a), uint16(a>>32), uint16(a>>48)&0xfff, uint16(b)&0xfff, b>>16&0xffffffffffff)
}
