package main

import (
	"cmp"
	"fmt"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/httpapi"
)

// openapiCmd prints the OpenAPI document `serve` would serve with the same
// settings, without a database: for linters and client generators.
type openapiCmd struct{}

func (openapiCmd) Run(cfg *config.Config, e env) error {
	doc, err := httpapi.Document(cfg, cmp.Or(cfg.PublicURL, "http://"+cfg.Addr))
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.stdout, "%s\n", doc); err != nil {
		return fmt.Errorf("write the OpenAPI document: %w", err)
	}
	return nil
}
