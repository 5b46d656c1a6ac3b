package sandbox

import "net/http"

func (s *Sandbox) attioHandler() http.Handler { return http.NotFoundHandler() }
