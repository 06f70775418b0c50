// Package lambda stands in for github.com/aws/aws-lambda-go/lambda, which cannot be fetched
// where this fixture is built: the same Lambda Runtime API exchange, standard library only.
//
// The loop starts when AWS_LAMBDA_RUNTIME_API is set: GET .../invocation/next, the handler,
// then POST .../{id}/response, or .../{id}/error with {"errorMessage","errorType","stackTrace"}.
// Both POSTs go out as aws-lambda-go sends them: a body of unknown length (chunked) announcing
// the Lambda-Runtime-Function-Error-Type/-Body trailers. A panic is reported, then the process
// exits, as aws-lambda-go does.
package lambda

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"time"
)

const (
	headerRequestID   = "Lambda-Runtime-Aws-Request-Id"
	headerDeadlineMS  = "Lambda-Runtime-Deadline-Ms"
	headerTraceID     = "Lambda-Runtime-Trace-Id"
	headerFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	headerXRayCause   = "Lambda-Runtime-Function-Xray-Error-Cause"
	trailerErrorType  = "Lambda-Runtime-Function-Error-Type"
	trailerErrorBody  = "Lambda-Runtime-Function-Error-Body"
	apiVersion        = "2018-06-01"
)

// Handler gets an invocation's payload and returns its answer.
type Handler func(ctx context.Context, payload []byte) ([]byte, error)

// StackFrame is one frame of a panic's stack, as Lambda's error shape holds it.
type StackFrame struct {
	Path  string `json:"path"`
	Line  int32  `json:"line"`
	Label string `json:"label"`
}

// InvokeError is Lambda's error shape.
type InvokeError struct {
	Message    string        `json:"errorMessage"`
	Type       string        `json:"errorType"`
	StackTrace []*StackFrame `json:"stackTrace,omitempty"`
	shouldExit bool
}

type contextKey struct{}

// RequestID is the invocation's request id, from a handler's context.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(contextKey{}).(string)
	return id
}

// Start runs the Runtime API loop; it returns only by ending the process.
func Start(handler Handler) {
	api := os.Getenv("AWS_LAMBDA_RUNTIME_API")
	if api == "" {
		log.Fatalf("expected AWS Lambda environment variables [AWS_LAMBDA_RUNTIME_API] are not defined")
	}
	client := &http.Client{Timeout: 0}
	base := "http://" + api + "/" + apiVersion + "/runtime/invocation/"
	agent := "aws-lambda-go/" + runtime.Version()
	for {
		if err := once(client, base, agent, handler); err != nil {
			log.Fatalf("%v", err)
		}
	}
}

func once(client *http.Client, base, agent string, handler Handler) error {
	request, err := http.NewRequest(http.MethodGet, base+"next", nil)
	if err != nil {
		return err
	}
	request.Header.Set("User-Agent", agent)
	response, err := client.Do(request)
	if err != nil {
		return fmt.Errorf("failed to get the next invoke: %v", err)
	}
	payload, err := io.ReadAll(response.Body)
	response.Body.Close()
	if response.StatusCode != http.StatusOK {
		return fmt.Errorf("failed to GET %snext: got unexpected status code: %d", base, response.StatusCode)
	}
	if err != nil {
		return fmt.Errorf("failed to read the invoke payload: %v", err)
	}
	id := response.Header.Get(headerRequestID)
	deadline, err := strconv.ParseInt(response.Header.Get(headerDeadlineMS), 10, 64)
	if err != nil {
		return post(client, base+id+"/error", agent, errorPayload(&InvokeError{
			Message: fmt.Sprintf("failed to parse deadline: %v", err), Type: "errorString"}))
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.UnixMilli(deadline))
	defer cancel()
	ctx = context.WithValue(ctx, contextKey{}, id)
	os.Setenv("_X_AMZN_TRACE_ID", response.Header.Get(headerTraceID))

	answer, invokeErr := call(ctx, payload, handler)
	if invokeErr != nil {
		body := errorPayload(invokeErr)
		log.Printf("%s", body)
		if err := post(client, base+id+"/error", agent, body); err != nil {
			return err
		}
		if invokeErr.shouldExit {
			return fmt.Errorf("calling the handler function resulted in a panic, the process should exit")
		}
		return nil
	}
	return post(client, base+id+"/response", agent, answer)
}

func call(ctx context.Context, payload []byte, handler Handler) (answer []byte, invokeErr *InvokeError) {
	defer func() {
		if value := recover(); value != nil {
			invokeErr = &InvokeError{
				Message:    fmt.Sprintf("%v", value),
				Type:       typeName(value),
				StackTrace: stack(),
				shouldExit: true,
			}
		}
	}()
	answer, err := handler(ctx, payload)
	if err != nil {
		return nil, &InvokeError{Message: err.Error(), Type: typeName(err)}
	}
	return answer, nil
}

func typeName(value interface{}) string {
	kind := reflect.TypeOf(value)
	if kind.Kind() == reflect.Ptr {
		return kind.Elem().Name()
	}
	return kind.Name()
}

func stack() []*StackFrame {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(4, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []*StackFrame
	for {
		frame, more := frames.Next()
		out = append(out, &StackFrame{Path: frame.File, Line: int32(frame.Line), Label: frame.Function})
		if !more {
			return out
		}
	}
}

func errorPayload(invokeErr *InvokeError) []byte {
	body, err := json.Marshal(invokeErr)
	if err != nil {
		body, _ = json.Marshal(&InvokeError{Message: err.Error(), Type: "Runtime.SerializationError"})
	}
	return body
}

// trailingReader hides the body's length from net/http (so it is sent chunked) and carries the
// trailers aws-lambda-go announces for an error met while the body is read.
type trailingReader struct {
	reader  io.Reader
	Trailer http.Header
}

func (r *trailingReader) Read(p []byte) (int, error) {
	return r.reader.Read(p)
}

func post(client *http.Client, url, agent string, body []byte) error {
	reader := &trailingReader{bytes.NewReader(body), http.Header{trailerErrorType: nil, trailerErrorBody: nil}}
	request, err := http.NewRequest(http.MethodPost, url, reader)
	if err != nil {
		return fmt.Errorf("failed to construct POST request to %s: %v", url, err)
	}
	request.Trailer = reader.Trailer
	request.Header.Set("User-Agent", agent)
	request.Header.Set("Content-Type", "application/json")
	if bytes.HasSuffix([]byte(url), []byte("/error")) {
		request.Header.Set(headerXRayCause, `{"working_directory":"","exceptions":[],"paths":[]}`)
	}
	response, err := client.Do(request)
	if err != nil {
		return fmt.Errorf("failed to POST to %s: %v", url, err)
	}
	defer response.Body.Close()
	if response.StatusCode != http.StatusAccepted {
		return fmt.Errorf("failed to POST to %s: got unexpected status code: %d", url, response.StatusCode)
	}
	_, err = io.Copy(io.Discard, response.Body)
	return err
}
