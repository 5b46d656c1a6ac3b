package sandbox

import "net/http"

func (s *Sandbox) pipedriveHandler() http.Handler { return http.NotFoundHandler() }
