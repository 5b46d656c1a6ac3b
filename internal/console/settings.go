package console

import (
	"net/http"

	"github.com/trawlhq/trawl/internal/auth"
)

// Settings: the account and its plan (settings.go), API keys
// (settings_keys.go), secret names (settings_secrets.go) and connections
// (settings_connections.go). Secrets, connections and the account are the
// API's routes asked as the session's key; keys have no API route, so
// their page applies auth's rule (Key.MayManageKeys, GrantProblem) to the
// store's keys as the CLI does.

// settingsSub names the Settings sub-pages, for the sub-navigation.
type settingsSub string

const (
	subAccount     settingsSub = "account"
	subKeys        settingsSub = "keys"
	subSecrets     settingsSub = "secrets"
	subConnections settingsSub = "connections"
)

// accountView is GET /v1/account's data, as the page needs it.
type accountView struct {
	UserID       string   `json:"user_id"`
	TestMode     bool     `json:"test_mode"`
	Permissions  []string `json:"permissions"`
	Subscription struct {
		Plan             string `json:"plan"`
		Status           string `json:"status"`
		CurrentPeriodEnd string `json:"current_period_end"`
	} `json:"subscription"`
	RateLimit struct {
		Tier          string `json:"tier"`
		Limit         int    `json:"limit"`
		WindowSeconds int    `json:"window_seconds"`
	} `json:"rate_limit"`
}

// balanceView is GET /v1/credits/balance's data.
type balanceView struct {
	Used      string `json:"used"`
	Limit     string `json:"limit"`
	Remaining string `json:"remaining"`
	NextReset string `json:"next_reset"`
}

// searchLimitsView is GET /v1/searches/limits's data.
type searchLimitsView struct {
	Limit     *int64 `json:"limit"`
	Unlimited bool   `json:"unlimited"`
	Used      int64  `json:"used"`
	Remaining *int64 `json:"remaining"`
}

type accountData struct {
	Sub         settingsSub
	Name        string
	KeyPrefix   string
	Account     accountView
	Balance     balanceView
	Limits      searchLimitsView
	LimitsError string // the API's refusal of the limits (a permission)
}

// settingsAccount is the account and its plan: GET /v1/account, the
// credit balance and the saved-search quota, as the key reads them.
func (c *Console) settingsAccount(w http.ResponseWriter, r *http.Request, s session) {
	d := accountData{Sub: subAccount, Name: s.p.Account.Name, KeyPrefix: s.p.Key.Prefix}
	account, balance := envelope[*accountView]{Data: &d.Account}, envelope[*balanceView]{Data: &d.Balance}
	if !c.read(w, r, s, "/v1/account", nil, &account) || !c.read(w, r, s, "/v1/credits/balance", nil, &balance) {
		return
	}
	var err error
	if d.LimitsError, err = c.readOrRefusal(r, s, "/v1/searches/limits", &d.Limits); err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view("Settings", "settings")
	v.Data = d
	c.render(w, http.StatusOK, "settings", v)
}

// confirmData is a page that asks before a destructive form: what it does,
// a warning when it hurts the session itself, the form and a way back.
type confirmData struct {
	Sub     settingsSub
	Heading string
	Message string
	Warning string
	Action  string
	Button  string
	Back    string
}

func (c *Console) confirm(w http.ResponseWriter, s session, title string, d confirmData) {
	v := s.view(title, "settings")
	v.Data = d
	c.render(w, http.StatusOK, "settings_confirm", v)
}

// mayManageKeys is why the session may not manage keys ("" when it may).
func mayManageKeys(k auth.Key) string {
	if k.MayManageKeys() {
		return ""
	}
	return lacks(auth.PermAll) + " Only a key holding * lists, creates and revokes API keys."
}
