package httpapi

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

func newAccessServer(t *testing.T) *Server {
	t.Helper()
	st := storetest.Open(t, store.SQLite, nil)
	return New(Deps{Config: &config.Config{}, Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now})
}

// TestCatalogueEndpointsAreRoutes checks that every endpoint an action
// stands for is a route: an unknown one would need '*' of every key.
func TestCatalogueEndpointsAreRoutes(t *testing.T) {
	s := newAccessServer(t)
	for _, spec := range s.catalogue.List("") {
		if spec.Endpoint == "" {
			continue
		}
		if _, ok := s.endpointAccess(spec.Endpoint); !ok {
			t.Errorf("%s stands for %q, which no route serves", spec.Kind, spec.Endpoint)
		}
	}
	if a, ok := s.endpointAccess("POST /v1/social/mapping"); !ok || a.permission != auth.PermSocialMappingRead || a.feature != auth.FeatureSocialMapping {
		t.Errorf("social mapping's access read back as %+v", a)
	}
	if a, ok := s.endpointAccess("POST /v1/nowhere"); ok || a.permission != auth.PermAll {
		t.Errorf("an unknown endpoint needs %+v", a)
	}
}

// TestKeyMayArmPlanGate checks the plan gate of a step, which no action of
// today's catalogue has: a step standing for social mapping refuses a
// STARTER account (PLAN_REQUIRED at the step) once the key has the
// permission, and FORBIDDEN comes first while it lacks it.
func TestKeyMayArmPlanGate(t *testing.T) {
	s := newAccessServer(t)
	spec, _ := s.catalogue.Lookup(action.KindPersonEnrichment)
	spec.Kind, spec.Endpoint = "mapping_step", "POST /v1/social/mapping"
	s.catalogue = action.NewCatalogueOf(append(s.catalogue.List(""), spec)...)
	def := workflow.Definition{Actions: []workflow.Action{{ID: "a", Kind: action.KindIf}, {ID: "m", Kind: "mapping_step"}}}
	call := func(plan auth.Plan, perms ...auth.Permission) *Error {
		p := auth.Principal{Key: auth.Key{Permissions: perms}, Account: auth.Account{Plan: plan}}
		err := s.keyMayArm(context.WithValue(context.Background(), principalKey{}, p), arming{def: def, root: "/workflow"})
		if err == nil {
			return nil
		}
		return err.(*Error)
	}
	if e := call(auth.PlanStarter, auth.PermSocialMappingRead); e == nil || e.Info.Code != CodePlanRequired || len(e.Fields()) != 1 || e.Fields()[0].Pointer != "/workflow/actions/1" {
		t.Fatalf("STARTER with the permission: %+v", e)
	}
	if e := call(auth.PlanStarter, auth.PermSearchesRead); e == nil || e.Info.Code != CodeForbidden || e.Fields()[0].Pointer != "/workflow/actions/1" {
		t.Fatalf("STARTER without the permission: %+v", e)
	}
	if e := call(auth.PlanEnterprise, auth.PermSocialMappingRead); e != nil {
		t.Fatalf("ENTERPRISE with the permission: %+v", e)
	}
	if got := s.requiredPermissions(workflow.Workflow{Definition: def}); !slices.Equal(got, []auth.Permission{auth.PermSocialMappingRead}) {
		t.Fatalf("required permissions %v", got)
	}
	if item := s.toCatalogueItem(spec); !slices.Equal(item.Plans, []auth.Plan{auth.PlanEnterprise, auth.PlanCustom}) {
		t.Fatalf("catalogue plans %v", item.Plans)
	}
}

// TestKeyMayArmTrigger checks the engagement trigger, which feeds a
// topic's engagements into executions: it needs what reading them needs.
func TestKeyMayArmTrigger(t *testing.T) {
	s := newAccessServer(t)
	def := workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerEngagement, Inputs: map[string]any{"topic_id": "t"}},
		Actions: []workflow.Action{{ID: "a", Kind: action.KindIf}}}
	call := func(plan auth.Plan, perms ...auth.Permission) *Error {
		p := auth.Principal{Key: auth.Key{Permissions: perms}, Account: auth.Account{Plan: plan}}
		err := s.keyMayArm(context.WithValue(context.Background(), principalKey{}, p), arming{def: def, root: "/workflow", mocked: func(string) bool { return true }})
		if err == nil {
			return nil
		}
		return err.(*Error)
	}
	if e := call(auth.PlanEnterprise, auth.PermSearchesRead); e == nil || e.Info.Code != CodeForbidden || e.Fields()[0].Pointer != "/workflow/trigger" {
		t.Fatalf("without topics:read: %+v", e)
	}
	if e := call(auth.PlanStarter, auth.PermTopicsRead); e == nil || e.Info.Code != CodePlanRequired {
		t.Fatalf("STARTER: %+v", e)
	}
	if e := call(auth.PlanCustom, auth.PermTopicsRead); e != nil {
		t.Fatalf("CUSTOM with topics:read: %+v", e)
	}
	if got := s.requiredPermissions(workflow.Workflow{Definition: def}); !slices.Equal(got, []auth.Permission{auth.PermTopicsRead}) {
		t.Fatalf("required permissions %v", got)
	}
}
