package sandbox

import "net/http"

func (s *Sandbox) airtableHandler() http.Handler { return http.NotFoundHandler() }
