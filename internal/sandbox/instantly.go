package sandbox

import "net/http"

func (s *Sandbox) instantlyHandler() http.Handler { return http.NotFoundHandler() }
