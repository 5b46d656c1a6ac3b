package sandbox

import "net/http"

func (s *Sandbox) lemlistHandler() http.Handler { return http.NotFoundHandler() }
