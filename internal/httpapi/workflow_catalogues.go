package httpapi

import (
	"context"

	"github.com/trawlhq/trawl/internal/workflow"
)

type triggerCatalogue struct {
	Items []workflow.TriggerSpec `json:"items"`
	Total int                    `json:"total"`
}

func (s *Server) handleTriggerCatalogue(context.Context, *struct{}) (*Reply[triggerCatalogue], error) {
	items := workflow.TriggerCatalogue()
	return reply("Workflow triggers", triggerCatalogue{Items: items, Total: len(items)}), nil
}

type exampleList struct {
	Items []workflow.Example `json:"items"`
	Total int                `json:"total"`
}

func (s *Server) handleWorkflowExamples(ctx context.Context, _ *struct{}) (*Reply[exampleList], error) {
	items, err := workflow.Examples()
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow examples", exampleList{Items: items, Total: len(items)}), nil
}
