package httpapi

// Envelope is the success body of every endpoint: message, success, data.
type Envelope[T any] struct {
	Message string `json:"message" doc:"What happened."`
	Success bool   `json:"success" doc:"Always true on success."`
	Data    T      `json:"data"`
}

// Reply is the output of a handler answering with an envelope.
type Reply[T any] struct {
	Body Envelope[T]
}

func reply[T any](message string, data T) *Reply[T] {
	return &Reply[T]{Body: Envelope[T]{Message: message, Success: true, Data: data}}
}

// MeteredReply is the output of an endpoint that spends credits; the header
// carries what the ledger recorded, 0 included.
type MeteredReply[T any] struct {
	SpentCredits int64 `header:"x-spent-credits" doc:"Credits this request spent."`
	Body         Envelope[T]
}
