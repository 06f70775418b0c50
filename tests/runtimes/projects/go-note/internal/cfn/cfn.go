// Package cfn stands in for the Go plugin's cfn package (which needs aws-lambda-go and the AWS
// SDK, neither of which can be fetched where this fixture is built): the same HandlerRequest
// in, the same response out (the ProgressEvent plus the request's bearerToken), over the
// Runtime API loop of internal/lambda.
package cfn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/cfn-debug/go-note/internal/cfn/handler"
	"github.com/cfn-debug/go-note/internal/lambda"
)

// Handler is what a resource implements: one method per action.
type Handler interface {
	Create(request handler.Request) handler.ProgressEvent
	Read(request handler.Request) handler.ProgressEvent
	Update(request handler.Request) handler.ProgressEvent
	Delete(request handler.Request) handler.ProgressEvent
	List(request handler.Request) handler.ProgressEvent
}

type credentials struct {
	AccessKeyID     string `json:"accessKeyId"`
	SecretAccessKey string `json:"secretAccessKey"`
	SessionToken    string `json:"sessionToken"`
}

type requestData struct {
	CallerCredentials          credentials       `json:"callerCredentials"`
	LogicalResourceID          string            `json:"logicalResourceId"`
	ResourceProperties         json.RawMessage   `json:"resourceProperties"`
	PreviousResourceProperties json.RawMessage   `json:"previousResourceProperties"`
	StackTags                  map[string]string `json:"stackTags"`
	SystemTags                 map[string]string `json:"systemTags"`
	TypeConfiguration          json.RawMessage   `json:"typeConfiguration"`
}

type event struct {
	AWSAccountID    string                 `json:"awsAccountId"`
	BearerToken     string                 `json:"bearerToken"`
	Region          string                 `json:"region"`
	Action          string                 `json:"action"`
	ResourceType    string                 `json:"resourceType"`
	CallbackContext map[string]interface{} `json:"callbackContext,omitempty"`
	RequestData     requestData            `json:"requestData"`
	StackID         string                 `json:"stackId"`
	NextToken       string
}

type response struct {
	Message              string                 `json:"message,omitempty"`
	OperationStatus      handler.Status         `json:"status,omitempty"`
	ResourceModel        interface{}            `json:"resourceModel,omitempty"`
	ErrorCode            string                 `json:"errorCode,omitempty"`
	BearerToken          string                 `json:"bearerToken,omitempty"`
	ResourceModels       []interface{}          `json:"resourceModels"`
	NextToken            string                 `json:"nextToken,omitempty"`
	CallbackContext      map[string]interface{} `json:"callbackContext,omitempty"`
	CallbackDelaySeconds int64                  `json:"callbackDelaySeconds,omitempty"`
}

// cfnError is the plugin's error for a request it refuses (its cfnerr.baseError).
type baseError struct {
	code, message string
	cause         error
}

func (e baseError) Error() string {
	text := e.code + ": " + e.message
	if e.cause != nil {
		text += "\ncaused by: " + e.cause.Error()
	}
	return text
}

// Start runs the handlers on the Lambda Runtime API.
func Start(h Handler) {
	log.Printf("Handler starting")
	lambda.Start(func(ctx context.Context, payload []byte) ([]byte, error) {
		var e event
		if err := json.Unmarshal(payload, &e); err != nil {
			return nil, err
		}
		answer, err := serve(h, &e)
		if err != nil {
			return nil, err
		}
		return json.Marshal(answer)
	})
}

func serve(h Handler, e *event) (response, error) {
	route := map[string]func(handler.Request) handler.ProgressEvent{
		"CREATE": h.Create, "READ": h.Read, "UPDATE": h.Update, "DELETE": h.Delete, "LIST": h.List,
	}
	fn, ok := route[e.Action]
	log.Printf("Handler received the %s action", e.Action)
	// Where the AWS SDK for Go v2 would send its calls (it honours AWS_ENDPOINT_URL).
	log.Printf("AWS_ENDPOINT_URL=%s credentials=%t", os.Getenv("AWS_ENDPOINT_URL"), os.Getenv("AWS_ACCESS_KEY_ID") != "")
	if !ok {
		return report(e, "router error", errors.New("InvalidRequest: No action/invalid action specified"))
	}
	if e.BearerToken == "" || e.Region == "" {
		return report(e, "validation error", errors.New("Validation: Failed Validation"))
	}
	request := handler.NewRequest(
		e.RequestData.LogicalResourceID,
		e.CallbackContext,
		handler.RequestContext{StackID: e.StackID, Region: e.Region, AccountID: e.AWSAccountID, NextToken: e.NextToken},
		e.RequestData.PreviousResourceProperties,
		e.RequestData.ResourceProperties,
		e.RequestData.TypeConfiguration,
	)
	p := fn(request)
	log.Printf("Received event: %s\nMessage: %s\n", p.OperationStatus, p.Message)
	var models []interface{}
	if p.ResourceModels != nil {
		models = make([]interface{}, len(p.ResourceModels))
		for i, model := range p.ResourceModels {
			models[i] = stringify(model)
		}
	}
	r := response{
		BearerToken:          e.BearerToken,
		Message:              p.Message,
		OperationStatus:      p.OperationStatus,
		ResourceModel:        stringify(p.ResourceModel),
		ResourceModels:       models,
		NextToken:            p.NextToken,
		CallbackContext:      p.CallbackContext,
		CallbackDelaySeconds: p.CallbackDelaySeconds,
		ErrorCode:            p.HandlerErrorCode,
	}
	mutating := e.Action == "CREATE" || e.Action == "UPDATE" || e.Action == "DELETE"
	if !mutating && r.OperationStatus == handler.InProgress {
		return report(e, "Response error", errors.New("READ and LIST handlers must return synchronous"))
	}
	return r, nil
}

// stringify writes every scalar of a model as a string, as the plugin's encoding.Stringify
// does (an integer 3 is answered as "3"); CloudFormation reads them back as the schema's types.
func stringify(model interface{}) interface{} {
	if model == nil {
		return nil
	}
	data, err := json.Marshal(model)
	if err != nil {
		return model
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var generic interface{}
	if decoder.Decode(&generic) != nil {
		return model
	}
	return strings(generic)
}

func strings(value interface{}) interface{} {
	switch typed := value.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(typed))
		for key, item := range typed {
			if item != nil {
				out[key] = strings(item)
			}
		}
		return out
	case []interface{}:
		for i, item := range typed {
			typed[i] = strings(item)
		}
		return typed
	case json.Number:
		return typed.String()
	case bool:
		return fmt.Sprint(typed)
	}
	return value
}

func report(e *event, message string, err error) (response, error) {
	text := fmt.Sprintf("Unable to complete request; %s error", message)
	return response{OperationStatus: handler.Failed, ErrorCode: "InternalFailure", Message: text,
		BearerToken: e.BearerToken}, baseError{"ServiceInternal", text, err}
}
