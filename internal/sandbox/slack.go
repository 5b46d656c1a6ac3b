package sandbox

import "net/http"

func (s *Sandbox) slackHandler() http.Handler { return http.NotFoundHandler() }
