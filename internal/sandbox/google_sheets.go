package sandbox

import "net/http"

func (s *Sandbox) googleSheetsHandler() http.Handler { return http.NotFoundHandler() }
