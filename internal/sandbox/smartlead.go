package sandbox

import "net/http"

func (s *Sandbox) smartleadHandler() http.Handler { return http.NotFoundHandler() }
