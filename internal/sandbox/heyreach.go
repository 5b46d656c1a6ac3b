package sandbox

import "net/http"

func (s *Sandbox) heyReachHandler() http.Handler { return http.NotFoundHandler() }
