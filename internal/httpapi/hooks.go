package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// hooksPath starts every webhook URL; what follows it is the token.
const hooksPath = "/v1/hooks/"

// redactHookToken keeps the webhook token, the credential of its route, out
// of the access log, whether or not the request matched the route: the
// path is logged with {token} in its place, beside a short hash that tells
// one token's requests from another's. Other paths are kept as they are.
func redactHookToken(path string) (logged, tokenHash string) {
	token, ok := strings.CutPrefix(path, hooksPath)
	if !ok || token == "" {
		return path, ""
	}
	sum := sha256.Sum256([]byte(token))
	return hooksPath + "{token}", hex.EncodeToString(sum[:6])
}

// webhookTolerance is how far a signed request's timestamp may be from now.
const webhookTolerance = 5 * time.Minute

// maxWait bounds ?wait=true.
const maxWait = 30 * time.Second

type hookInput struct {
	Token     string `path:"token" doc:"The token of the workflow's webhook_url."`
	Wait      bool   `query:"wait" doc:"Answer when the execution ends (up to 30 s) with its last step's output."`
	ID        string `header:"webhook-id" doc:"Standard Webhooks message id; a repeated id fires once."`
	Timestamp string `header:"webhook-timestamp" doc:"Unix seconds; within 5 minutes of now when signatures are verified."`
	Signature string `header:"webhook-signature" doc:"v1,<base64 HMAC-SHA256 of id.timestamp.body> (space-separated list)."`
	RawBody   []byte `contentType:"application/json"`
}

type hookOut struct {
	ExecutionID string  `json:"execution_id"`
	Status      string  `json:"status,omitempty" doc:"With wait: how the execution ended (running if it did not within 30 s)."`
	Output      any     `json:"output,omitempty" doc:"With wait: the output of the last step that ran."`
	Error       *string `json:"error,omitempty"`
}

type hookReply struct {
	Status int
	Body   Envelope[hookOut]
}

// handleHook starts an execution of a webhook-triggered workflow.
func (s *Server) handleHook(ctx context.Context, in *hookInput) (*hookReply, error) {
	w, err := s.store.WorkflowByWebhookToken(ctx, in.Token)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("The webhook")
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if w.Status != workflow.StatusPublished || !w.Enabled || w.Definition.TriggerKind() != workflow.TriggerWebhook {
		return nil, NewAPIError(http.StatusConflict, CodeConflict, "The workflow of this webhook is not published and enabled; nothing was recorded.")
	}
	if verify, _ := w.Definition.Trigger.Inputs["verify_signature"].(bool); verify {
		if err := s.verifyWebhook(w, in); err != nil {
			return nil, err
		}
	}
	var body any = map[string]any{}
	if len(in.RawBody) > 0 {
		if err := json.Unmarshal(in.RawBody, &body); err != nil {
			return nil, NewAPIError(http.StatusBadRequest, CodeBadRequest, "The request body is not valid JSON.")
		}
	}
	payload, ok := body.(map[string]any)
	if !ok {
		payload = map[string]any{"body": body}
	}
	x := workflow.Execution{WorkflowID: w.ID, AccountID: w.AccountID, Version: w.Version, Definition: w.Definition,
		EventName: workflow.TriggerWebhook, Trigger: payload}
	if in.ID != "" {
		x.EventKey = "webhook:" + in.ID
	}
	out := &hookReply{Status: http.StatusAccepted, Body: Envelope[hookOut]{Message: "Execution started", Success: true}}
	if !in.Wait {
		created, err := s.store.CreateExecution(ctx, &x, nil, s.cfg.SearchRunLease, false)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		out.Body.Data.ExecutionID = x.ID
		if !created {
			out.Body.Message = alreadyReceived
		}
		return out, nil
	}
	// The caller waits: run the execution here rather than through a job.
	// Once stored it is claimed, so a crash leaves it to the tick.
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), maxWait)
	defer cancel()
	res, err := s.engine.Start(runCtx, x)
	if err != nil && !res.Stored {
		return nil, s.fail(ctx, err)
	}
	if err != nil {
		s.log.Warn("webhook execution", "execution_id", res.ExecutionID, "error", err)
	}
	out.Body.Data.ExecutionID = res.ExecutionID
	if res.Duplicate {
		out.Body.Message = alreadyReceived
		return out, nil
	}
	out.Status, out.Body.Message = http.StatusOK, "Execution "+string(res.Status)
	out.Body.Data.Status, out.Body.Data.Output = string(res.Status), res.Output
	if res.Error != "" {
		out.Body.Data.Error = &res.Error
	}
	return out, nil
}

const alreadyReceived = "Already received: the webhook-id fired this execution before"

// verifyWebhook checks a Standard Webhooks signature.
func (s *Server) verifyWebhook(w workflow.Workflow, in *hookInput) error {
	unauthorized := func(msg string) error {
		return NewAPIError(http.StatusUnauthorized, CodeAuthRequired, msg).
			WithSuggestion("Sign the request as Standard Webhooks does, with the workflow's signing secret.")
	}
	if in.ID == "" || in.Timestamp == "" || in.Signature == "" {
		return unauthorized("The webhook needs webhook-id, webhook-timestamp and webhook-signature headers.")
	}
	sec, err := strconv.ParseInt(in.Timestamp, 10, 64)
	if err != nil {
		return unauthorized("webhook-timestamp must be Unix seconds.")
	}
	if d := s.now().Sub(time.Unix(sec, 0)); d > webhookTolerance || d < -webhookTolerance {
		return unauthorized("webhook-timestamp is more than 5 minutes from now.")
	}
	plain, err := s.secrets.Open(w.WebhookSecret, secret.WebhookContext(w.ID))
	if err != nil {
		return internalError()
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(string(plain), "whsec_"))
	if err != nil {
		return internalError()
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(in.ID + "." + in.Timestamp + "."))
	mac.Write(in.RawBody)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(in.Signature) {
		v, b64, ok := strings.Cut(sig, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return unauthorized("No webhook-signature matches the body.")
}
