package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/integration"
)

// connectionListed is GET /v1/integrations's item, with the type's name
// and, when asked, its health.
type connectionListed struct {
	Type      string  `json:"type"`
	Name      string  `json:"name"`
	Source    *string `json:"source"`
	Connected bool    `json:"connected"`
	Display   string  `json:"-"`
	Health    *healthView
}

// healthView is GET /v1/integrations/{type}/health's data.
type healthView struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

type connectionsData struct {
	Sub         settingsSub
	ListDenied  string
	WriteDenied string
	Connections []connectionListed
}

// display is the type's name as its service spells it.
func display(typ string) string {
	if t, ok := integration.Lookup(typ); ok {
		return t.DisplayName
	}
	return typ
}

// connectionsPage lists every type (GET /v1/integrations), with health,
// when given, on its row.
func (c *Console) connectionsPage(w http.ResponseWriter, r *http.Request, s session, health *healthView) {
	d := connectionsData{Sub: subConnections}
	if !s.p.Key.Has(auth.PermSecretsWrite) {
		d.WriteDenied = lacks(auth.PermSecretsWrite)
	}
	var err error
	if d.ListDenied, err = c.readOrRefusal(r, s, "/v1/integrations", &d.Connections); err != nil {
		c.serverError(w, r, err)
		return
	}
	for i := range d.Connections {
		d.Connections[i].Display = display(d.Connections[i].Type)
		if health != nil && health.Type == d.Connections[i].Type {
			d.Connections[i].Health = health
		}
	}
	v := s.view("Connections", "settings")
	v.Data = d
	c.render(w, http.StatusOK, "settings_connections", v)
}

func (c *Console) settingsConnections(w http.ResponseWriter, r *http.Request, s session) {
	c.connectionsPage(w, r, s, nil)
}

// connectionType is the path's type, as the API resolves it; unknown is a
// 404 page.
func (c *Console) connectionType(w http.ResponseWriter, r *http.Request) (*integration.Type, bool) {
	name := r.PathValue("type")
	t, ok := integration.Lookup(strings.ReplaceAll(strings.ToLower(name), "-", "_"))
	if !ok {
		c.message(w, r, http.StatusNotFound, "Not found", "No integration type "+name+".")
	}
	return t, ok
}

// connectionHealth probes the connection live (GET …/health): the row's
// cell for htmx, else the whole list with it.
func (c *Console) connectionHealth(w http.ResponseWriter, r *http.Request, s session) {
	t, ok := c.connectionType(w, r)
	if !ok {
		return
	}
	h, err := c.health(r, s, t)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") != "" {
		v := s.view("Connections", "settings")
		v.Data = connectionListed{Type: t.Name, Display: t.DisplayName, Health: &h}
		c.renderBlock(w, http.StatusOK, "settings_connections", "health-cell", v)
		return
	}
	c.connectionsPage(w, r, s, &h)
}

// credentialInput is one credential field of the connect form.
type credentialInput struct {
	integration.Field
	Input  string // the input's name: credentials.<field>
	ID     string
	Secret bool // a password input (a token, a key), never filled back
	Value  string
}

type connectData struct {
	Sub     settingsSub
	Type    *integration.Type
	Denied  string
	Name    string
	Fields  []credentialInput
	Problem apiProblem
}

// secretField says whether a credential is a secret (a password input):
// every field but those naming where or who (a URL, a domain, an id, a
// time), which a user reads back to check.
func secretField(name string) bool {
	for _, plain := range []string{"_url", "_domain", "_id", "_at"} {
		if strings.HasSuffix(name, plain) {
			return false
		}
	}
	return true
}

func (c *Console) connectPage(w http.ResponseWriter, r *http.Request, s session, status int, t *integration.Type, form url.Values, p apiProblem) {
	d := connectData{Sub: subConnections, Type: t, Name: form.Get("name")}
	if !s.p.Key.Has(auth.PermSecretsWrite) {
		d.Denied = lacks(auth.PermSecretsWrite)
	}
	names := []string{"name"}
	for _, f := range t.Fields {
		in := credentialInput{Field: f, Input: "credentials." + f.Name, ID: "credentials-" + f.Name, Secret: secretField(f.Name)}
		if !in.Secret {
			in.Value = form.Get(in.Input)
		}
		d.Fields = append(d.Fields, in)
		names = append(names, in.Input)
	}
	d.Problem = p.Place(names...)
	v := s.view("Connect "+t.DisplayName, "settings")
	v.Data = d
	c.render(w, status, "settings_connect", v)
}

// connectForm is the type's connect form: one input per credential field.
func (c *Console) connectForm(w http.ResponseWriter, r *http.Request, s session) {
	t, ok := c.connectionType(w, r)
	if !ok {
		return
	}
	c.connectPage(w, r, s, http.StatusOK, t, url.Values{}, apiProblem{})
}

// connect is POST /v1/integrations/{type} with the fields filled in; the
// API's messages go to the fields.
func (c *Console) connect(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	t, ok := c.connectionType(w, r)
	if !ok {
		return
	}
	creds := map[string]string{}
	for _, f := range t.Fields {
		if v := r.PostForm.Get("credentials." + f.Name); v != "" {
			creds[f.Name] = v
		}
	}
	body := map[string]any{"credentials": creds}
	if name := strings.TrimSpace(r.PostForm.Get("name")); name != "" {
		body["name"] = name
	}
	a, err := c.api(r, s, http.MethodPost, "/v1/integrations/"+url.PathEscape(t.Name), nil, body)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.connectPage(w, r, s, a.Status, t, r.PostForm, a.Problem())
		return
	}
	var env struct {
		Message string `json:"message"`
	}
	if err := a.Decode(&env); err != nil {
		c.serverError(w, r, err)
		return
	}
	// Probe at once, so a token the service refuses is said now, not at
	// the first workflow step that uses it.
	h, err := c.health(r, s, t)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	switch h.Status {
	case "ok":
		c.done(w, r, "/settings/connections", env.Message+": "+t.DisplayName+" accepts the credentials.")
	default:
		// A flash holds at most 500 characters (takeFlash): cut the reason.
		reason := h.Error
		if runes := []rune(reason); len(runes) > 300 {
			reason = string(runes[:300]) + "…"
		}
		c.done(w, r, "/settings/connections", env.Message+", but "+t.DisplayName+" refuses the credentials: "+reason+" Replace them or disconnect.")
	}
}

// health asks GET /v1/integrations/{type}/health; a refusal of the API
// (a permission) is a status "refused" with its sentence.
func (c *Console) health(r *http.Request, s session, t *integration.Type) (healthView, error) {
	a, err := c.api(r, s, http.MethodGet, "/v1/integrations/"+url.PathEscape(t.Name)+"/health", nil, nil)
	if err != nil {
		return healthView{}, err
	}
	h := healthView{Type: t.Name}
	if !a.OK() {
		h.Status, h.Error = "refused", a.Problem().Message
		return h, nil
	}
	return h, a.Data(&h)
}

func (c *Console) confirmDisconnect(w http.ResponseWriter, r *http.Request, s session) {
	t, ok := c.connectionType(w, r)
	if !ok || !c.need(w, r, s, auth.PermSecretsWrite) {
		return
	}
	c.confirm(w, s, "Disconnect "+t.DisplayName, confirmData{Sub: subConnections, Heading: "Disconnect " + t.DisplayName + "?",
		Message: "Its credentials are deleted; workflow steps that use " + t.DisplayName + " fail until it is connected again.",
		Action:  "/settings/connections/" + t.Name + "/disconnect", Button: "Disconnect " + t.DisplayName, Back: "/settings/connections"})
}

// disconnect is DELETE /v1/integrations/{type}.
func (c *Console) disconnect(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	t, ok := c.connectionType(w, r)
	if !ok {
		return
	}
	a, err := c.api(r, s, http.MethodDelete, "/v1/integrations/"+url.PathEscape(t.Name), nil, nil)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.apiFailure(w, r, a)
		return
	}
	c.done(w, r, "/settings/connections", t.DisplayName+" disconnected.")
}
