package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/workflow"
)

// What a key may not do directly, it may not do through a workflow
// (docs/decisions.md, "What a workflow may do"): saving, publishing,
// enabling, test-running or rerunning a workflow checks the calling key
// for what each step's endpoint needs, as declared in routes.go, and for
// the permission of each input given that has one (secret inputs).

// endpointAccess is what the route of an endpoint ("POST
// /v1/profile/enrich") declares, read back from the registered
// operation so that routes.go stays the one table of permissions. An
// endpoint no route serves needs '*': failing closed, and caught by
// TestCatalogueEndpointsAreRoutes.
func (s *Server) endpointAccess(endpoint string) (access, bool) {
	method, path, _ := strings.Cut(endpoint, " ")
	var op *huma.Operation
	if item := s.api.OpenAPI().Paths[path]; item != nil {
		op = map[string]*huma.Operation{http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put,
			http.MethodPatch: item.Patch, http.MethodDelete: item.Delete}[method]
	}
	if op == nil {
		return access{permission: auth.PermAll}, false
	}
	a := access{}
	a.permission, _ = op.Metadata[metaPermission].(auth.Permission)
	a.feature, _ = op.Metadata[metaFeature].(auth.Feature)
	return a, true
}

// need is one permission or plan feature that a step, the trigger or the
// link to a saved search requires of the key.
type need struct {
	actionID   string // "" for the trigger and the link
	pointer    string // /workflow/actions/2, /workflow/actions/2/inputs/secret_headers, /search_id
	what       string // step who (person_enrichment), the trigger …
	permission auth.Permission
	feature    auth.Feature
	because    string // the endpoint, or the input
}

// arming is what a key arms by saving, publishing, enabling or testing a
// workflow.
type arming struct {
	def      workflow.Definition
	root     string // the definition's pointer: /workflow, or /draft/workflow
	searchID string // the linked saved search, "" for none
	// mocked tells the steps a test run mocks: they do not run.
	mocked func(actionID string) bool
}

// needs lists what the link, the trigger and the steps require, in this
// order. Unknown kinds require nothing here: validation refuses them.
func (s *Server) needs(a arming) []need {
	var out []need
	endpoint := func(n need, ep string) {
		acc, _ := s.endpointAccess(ep)
		if acc.permission != "" || acc.feature != "" {
			n.permission, n.feature = acc.permission, acc.feature
			out = append(out, n)
		}
	}
	if a.searchID != "" {
		endpoint(need{pointer: "/search_id", what: "the link to saved search " + a.searchID,
			because: "to feed its executions what " + workflow.SearchLinkEndpoint + " reads"}, workflow.SearchLinkEndpoint)
	}
	if ep := a.def.TriggerEndpoint(); ep != "" {
		endpoint(need{pointer: a.root + "/trigger", what: "the trigger " + a.def.TriggerKind(),
			because: "to feed its executions what " + ep + " reads"}, ep)
	}
	for i, act := range a.def.Actions {
		spec, ok := s.catalogue.Lookup(act.Kind)
		if !ok {
			continue
		}
		at, what := a.root+"/actions/"+strconv.Itoa(i), "step "+act.ID+" ("+act.Kind+")"
		if spec.Endpoint != "" {
			endpoint(need{actionID: act.ID, pointer: at, what: what, because: "as " + spec.Endpoint + " does"}, spec.Endpoint)
		}
		for _, in := range spec.Inputs {
			if v, given := act.Inputs[in.Name]; given && v != nil && in.Permission != "" {
				out = append(out, need{actionID: act.ID, pointer: at + "/inputs/" + in.Name, what: what,
					permission: in.Permission, because: "to send the secrets its input " + in.Name + " names"})
			}
		}
	}
	return out
}

// requiredPermissions is what a key must carry to save, publish, enable
// or test the workflow, sorted.
func (s *Server) requiredPermissions(w workflow.Workflow) []auth.Permission {
	out := []auth.Permission{}
	for _, n := range s.needs(arming{def: w.Definition, searchID: w.SearchID}) {
		if n.permission != "" && !slices.Contains(out, n.permission) {
			out = append(out, n.permission)
		}
	}
	slices.Sort(out)
	return out
}

// keyMayArm answers 403 FORBIDDEN when the calling key lacks a
// permission that the workflow needs, every one listed at its pointer,
// or, that being so, PLAN_REQUIRED when the account's plan lacks a
// feature it needs.
func (s *Server) keyMayArm(ctx context.Context, a arming) error {
	p := principalFrom(ctx)
	var (
		missing []Detail
		perms   []auth.Permission
		gated   []Detail
		feature auth.Feature
	)
	for _, n := range s.needs(a) {
		if a.mocked != nil && n.actionID != "" && a.mocked(n.actionID) {
			continue
		}
		if n.permission != "" && !p.Key.Has(n.permission) {
			perms = append(perms, n.permission)
			missing = append(missing, Detail{Field: pointerField(n.pointer), Pointer: n.pointer,
				Message: fmt.Sprintf("%s needs permission %s %s; the API key lacks it", n.what, n.permission, n.because)})
		}
		if n.feature != "" && !p.Account.Plan.Allows(n.feature) {
			feature = n.feature
			gated = append(gated, Detail{Field: pointerField(n.pointer), Pointer: n.pointer,
				Message: fmt.Sprintf("%s needs a plan with %s %s", n.what, n.feature, n.because)})
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("The API key lacks %d permissions the steps of the workflow need.", len(missing))
		if len(missing) == 1 {
			msg = "The API key lacks a permission a step of the workflow needs: " + missing[0].Message + "."
		}
		return forbidden(msg, perms, missing...).
			WithSuggestion("What a key may not do directly, it may not do through a workflow: use a key with the permissions listed, or with '*'.")
	}
	if len(gated) > 0 {
		e := planRequired(p.Account.Plan, feature)
		e.More().Fields = gated
		return e
	}
	return nil
}

// mockedIn tells which steps mocks replace.
func mockedIn(mocks map[string]workflow.Mock) func(string) bool {
	return func(id string) bool {
		m, ok := mocks[id]
		return ok && m.Enabled
	}
}

// catalogueItem is an action's catalogue entry with what its endpoint
// requires of the key and of the plan.
type catalogueItem struct {
	action.Spec
	Permissions []auth.Permission `json:"permissions" doc:"What the key that saves, publishes, enables or tests a workflow with this step must carry: the permission of its endpoint. An input with a permission (secret inputs: secrets:read) needs it too when given."`
	Plans       []auth.Plan       `json:"plans" doc:"The plans whose accounts may use this step (those of its endpoint)."`
}

func (s *Server) toCatalogueItem(spec action.Spec) catalogueItem {
	item := catalogueItem{Spec: spec, Permissions: []auth.Permission{}, Plans: auth.Plans()}
	if spec.Endpoint == "" {
		return item
	}
	acc, _ := s.endpointAccess(spec.Endpoint)
	if acc.permission != "" {
		item.Permissions = append(item.Permissions, acc.permission)
	}
	if acc.feature != "" {
		item.Plans = slices.DeleteFunc(item.Plans, func(p auth.Plan) bool { return !p.Allows(acc.feature) })
	}
	return item
}
