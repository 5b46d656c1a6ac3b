package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
)

// secretListed is GET /v1/secrets's item: a name, never a value.
type secretListed struct {
	Name    string `json:"name"`
	Created string `json:"created"`
	Updated string `json:"updated"`
}

type secretsData struct {
	Sub settingsSub
	// ListDenied is the API's refusal of the list; WriteDenied says the
	// key may not add or delete (the form is not offered).
	ListDenied  string
	WriteDenied string
	Secrets     []secretListed
	// The add form: the name typed (the value is never sent back).
	Name    string
	Problem apiProblem
}

// secretsPage renders the list (GET /v1/secrets as the key) and the form.
func (c *Console) secretsPage(w http.ResponseWriter, r *http.Request, s session, status int, name string, p apiProblem) {
	d := secretsData{Sub: subSecrets, Name: name, Problem: p.Place("name", "value")}
	if !s.p.Key.Has(auth.PermSecretsWrite) {
		d.WriteDenied = lacks(auth.PermSecretsWrite)
	}
	var list struct {
		Items []secretListed `json:"items"`
	}
	var err error
	if d.ListDenied, err = c.readOrRefusal(r, s, "/v1/secrets", &list); err != nil {
		c.serverError(w, r, err)
		return
	}
	d.Secrets = list.Items
	v := s.view("Secrets", "settings")
	v.Data = d
	c.render(w, status, "settings_secrets", v)
}

func (c *Console) settingsSecrets(w http.ResponseWriter, r *http.Request, s session) {
	c.secretsPage(w, r, s, http.StatusOK, "", apiProblem{})
}

// putSecret is POST /v1/secrets with the form's name and value; the API's
// messages go to the fields.
func (c *Console) putSecret(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	a, err := c.api(r, s, http.MethodPost, "/v1/secrets", nil, map[string]string{"name": name, "value": r.PostForm.Get("value")})
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.secretsPage(w, r, s, a.Status, name, a.Problem())
		return
	}
	verb := "saved"
	if a.Status == http.StatusOK {
		verb = "replaced"
	}
	c.done(w, r, "/settings/secrets", "Secret "+name+" "+verb+". Its value is never shown again.")
}

func (c *Console) confirmDeleteSecret(w http.ResponseWriter, r *http.Request, s session) {
	if !c.need(w, r, s, auth.PermSecretsWrite) {
		return
	}
	name := r.PathValue("name")
	c.confirm(w, s, "Delete secret", confirmData{Sub: subSecrets, Heading: "Delete secret " + name + "?",
		Message: "Workflow steps that use " + name + " fail from their next run. This cannot be undone.",
		Action:  "/settings/secrets/" + url.PathEscape(name) + "/delete", Button: "Delete " + name, Back: "/settings/secrets"})
}

// deleteSecret is DELETE /v1/secrets/{name}.
func (c *Console) deleteSecret(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	name := r.PathValue("name")
	a, err := c.api(r, s, http.MethodDelete, "/v1/secrets/"+url.PathEscape(name), nil, nil)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.apiFailure(w, r, a)
		return
	}
	c.done(w, r, "/settings/secrets", "Secret "+name+" deleted.")
}
