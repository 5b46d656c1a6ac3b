package sandbox

import "net/http"

func (s *Sandbox) linearHandler() http.Handler { return http.NotFoundHandler() }
