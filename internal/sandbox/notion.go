package sandbox

import "net/http"

func (s *Sandbox) notionHandler() http.Handler { return http.NotFoundHandler() }
