package sandbox

import "net/http"

func (s *Sandbox) salesforceHandler() http.Handler { return http.NotFoundHandler() }
