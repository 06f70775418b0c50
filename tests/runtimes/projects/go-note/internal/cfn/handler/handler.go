// Package handler stands in for the Go plugin's cfn/handler package: the request a handler
// gets and the ProgressEvent it returns.
package handler

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
)

// Status is a ProgressEvent's operation status.
type Status string

const (
	InProgress Status = "IN_PROGRESS"
	Success    Status = "SUCCESS"
	Failed     Status = "FAILED"
)

// RequestContext is what the request says about the invocation.
type RequestContext struct {
	StackID   string
	Region    string
	AccountID string
	NextToken string
}

// Request is passed to the handlers.
type Request struct {
	LogicalResourceID string
	CallbackContext   map[string]interface{}
	RequestContext    RequestContext
	previousBody      []byte
	body              []byte
	typeConfigBody    []byte
}

// NewRequest returns a Request of the given bodies.
func NewRequest(id string, ctx map[string]interface{}, rctx RequestContext, previous, body, typeConfig []byte) Request {
	return Request{id, ctx, rctx, previous, body, typeConfig}
}

// UnmarshalPrevious fills v with the previous properties, when there are any.
func (r *Request) UnmarshalPrevious(v interface{}) error {
	if len(r.previousBody) == 0 || string(r.previousBody) == "null" {
		return nil
	}
	return unmarshal(r.previousBody, v)
}

// Unmarshal fills v with the desired properties.
func (r *Request) Unmarshal(v interface{}) error {
	if len(r.body) == 0 {
		return errors.New("BodyEmpty: Body is empty")
	}
	return unmarshal(r.body, v)
}

// unmarshal reads a model whose scalars may be strings (CloudFormation sends them so, and the
// plugin answers them so), as the plugin's encoding.Unmarshal does for a model's top level.
func unmarshal(data []byte, v interface{}) error {
	if err := json.Unmarshal(data, v); err == nil {
		return nil
	}
	var generic map[string]interface{}
	if err := json.Unmarshal(data, &generic); err != nil {
		return err
	}
	kind := reflect.TypeOf(v).Elem()
	for i := 0; i < kind.NumField(); i++ {
		field := kind.Field(i)
		text, ok := generic[field.Name].(string)
		if !ok {
			continue
		}
		target := field.Type
		if target.Kind() == reflect.Ptr {
			target = target.Elem()
		}
		switch target.Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64:
			if number, err := strconv.ParseFloat(text, 64); err == nil {
				generic[field.Name] = number
			}
		case reflect.Bool:
			if flag, err := strconv.ParseBool(text); err == nil {
				generic[field.Name] = flag
			}
		}
	}
	again, err := json.Marshal(generic)
	if err != nil {
		return err
	}
	return json.Unmarshal(again, v)
}

// UnmarshalTypeConfig fills v with the type configuration, when there is one.
func (r *Request) UnmarshalTypeConfig(v interface{}) error {
	if len(r.typeConfigBody) == 0 || string(r.typeConfigBody) == "null" {
		return nil
	}
	return json.Unmarshal(r.typeConfigBody, v)
}

// ProgressEvent is a handler's answer.
type ProgressEvent struct {
	OperationStatus      Status                 `json:"status,omitempty"`
	HandlerErrorCode     string                 `json:"errorCode,omitempty"`
	Message              string                 `json:"message,omitempty"`
	CallbackContext      map[string]interface{} `json:"callbackContext,omitempty"`
	CallbackDelaySeconds int64                  `json:"callbackDelaySeconds,omitempty"`
	ResourceModel        interface{}            `json:"resourceModel,omitempty"`
	ResourceModels       []interface{}          `json:"resourceModels"`
	NextToken            string                 `json:"nextToken,omitempty"`
}

// NewFailedEvent is a FAILED event for an error the handler returned or a panic it trapped.
func NewFailedEvent(err error) ProgressEvent {
	return ProgressEvent{
		OperationStatus:  Failed,
		Message:          "Unable to complete request: " + err.Error(),
		HandlerErrorCode: "GeneralServiceException",
	}
}
