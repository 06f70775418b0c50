package resource

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cfn-debug/go-note/internal/cfn/handler"
)

// store is the folder the notes are kept in, one JSON file each.
func store() string {
	if dir := os.Getenv("GO_NOTE_STORE"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "cfndebug-go-note")
}

func path(id string) string {
	return filepath.Join(store(), filepath.Base(id)+".json")
}

func load(id string) (*Model, bool) {
	data, err := os.ReadFile(path(id))
	if err != nil {
		return nil, false
	}
	model := &Model{}
	if json.Unmarshal(data, model) != nil {
		return nil, false
	}
	return model, true
}

func save(model *Model) error {
	if err := os.MkdirAll(store(), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(model)
	if err != nil {
		return err
	}
	return os.WriteFile(path(*model.NoteId), data, 0o600)
}

// public is the model as a handler returns it: without its writeOnly Secret.
func public(model *Model) *Model {
	out := *model
	out.Secret = nil
	return &out
}

func fault(req handler.Request) string {
	config := &TypeConfiguration{}
	if err := req.UnmarshalTypeConfig(config); err != nil || config.Fault == nil {
		return ""
	}
	switch *config.Fault {
	case "Panic":
		panic("planted fault: Panic")
	case "Exit":
		log.Printf("planted fault: Exit, the process ends now")
		os.Exit(3)
	}
	return *config.Fault
}

func byTitle(title string) string {
	names, _ := filepath.Glob(filepath.Join(store(), "note-*.json"))
	for _, name := range names {
		id := strings.TrimSuffix(filepath.Base(name), ".json")
		if model, found := load(id); found && model.Title != nil && *model.Title == title {
			return id
		}
	}
	return ""
}

func notFound(id string) handler.ProgressEvent {
	return handler.ProgressEvent{
		OperationStatus:  handler.Failed,
		HandlerErrorCode: "NotFound",
		Message:          "note " + id + " not found",
	}
}

func identifier(model *Model) string {
	if model.NoteId == nil {
		return ""
	}
	return *model.NoteId
}

// Create writes the note, then confirms it on a second invocation (an IN_PROGRESS chain).
func Create(req handler.Request, prevModel *Model, currentModel *Model) (handler.ProgressEvent, error) {
	planted := fault(req)
	if id, ok := req.CallbackContext["NoteId"].(string); ok {
		model, found := load(id)
		if !found {
			return handler.ProgressEvent{}, errors.New("the note written by the first invocation is gone")
		}
		log.Printf("note %s stabilized", id)
		if planted == "WriteOnlyOnCreate" {
			return handler.ProgressEvent{OperationStatus: handler.Success, ResourceModel: model}, nil
		}
		return handler.ProgressEvent{OperationStatus: handler.Success, ResourceModel: public(model)}, nil
	}
	if currentModel.Title == nil || strings.TrimSpace(*currentModel.Title) == "" {
		return handler.ProgressEvent{OperationStatus: handler.Failed, HandlerErrorCode: "InvalidRequest",
			Message: "Title is required"}, nil
	}
	// The Title is the note's natural key: the Go plugin gives a handler no idempotency token,
	// so a repeated create finds the note by its Title and is refused.
	if existing := byTitle(*currentModel.Title); existing != "" {
		return handler.ProgressEvent{OperationStatus: handler.Failed, HandlerErrorCode: "AlreadyExists",
			Message: "a note titled " + *currentModel.Title + " exists: " + existing}, nil
	}
	raw := make([]byte, 8)
	if _, err := rand.Read(raw); err != nil {
		return handler.ProgressEvent{}, err
	}
	id := "note-" + hex.EncodeToString(raw)
	currentModel.NoteId = &id
	if err := save(currentModel); err != nil {
		return handler.ProgressEvent{}, err
	}
	log.Printf("note %s written, waiting for it to stabilize", id)
	return handler.ProgressEvent{
		OperationStatus:      handler.InProgress,
		CallbackContext:      map[string]interface{}{"NoteId": id},
		CallbackDelaySeconds: 1,
		ResourceModel:        currentModel,
	}, nil
}

// Read returns the note without its Secret.
func Read(req handler.Request, prevModel *Model, currentModel *Model) (handler.ProgressEvent, error) {
	planted := fault(req)
	id := identifier(currentModel)
	model, found := load(id)
	if !found {
		return notFound(id), nil
	}
	if planted == "WriteOnlyOnRead" {
		return handler.ProgressEvent{OperationStatus: handler.Success, ResourceModel: model}, nil
	}
	return handler.ProgressEvent{OperationStatus: handler.Success, ResourceModel: public(model)}, nil
}

// Update changes an existing note; a missing one is NotFound.
func Update(req handler.Request, prevModel *Model, currentModel *Model) (handler.ProgressEvent, error) {
	fault(req)
	id := identifier(currentModel)
	if _, found := load(id); !found {
		return notFound(id), nil
	}
	if err := save(currentModel); err != nil {
		return handler.ProgressEvent{}, err
	}
	return handler.ProgressEvent{OperationStatus: handler.Success, ResourceModel: public(currentModel)}, nil
}

// Delete removes the note; a missing one is NotFound.
func Delete(req handler.Request, prevModel *Model, currentModel *Model) (handler.ProgressEvent, error) {
	fault(req)
	id := identifier(currentModel)
	if _, found := load(id); !found {
		return notFound(id), nil
	}
	if err := os.Remove(path(id)); err != nil {
		return handler.ProgressEvent{}, err
	}
	return handler.ProgressEvent{OperationStatus: handler.Success}, nil
}

// List returns every note, without their Secrets.
func List(req handler.Request, prevModel *Model, currentModel *Model) (handler.ProgressEvent, error) {
	fault(req)
	names, _ := filepath.Glob(filepath.Join(store(), "note-*.json"))
	sort.Strings(names)
	models := []interface{}{}
	for _, name := range names {
		if model, found := load(strings.TrimSuffix(filepath.Base(name), ".json")); found {
			models = append(models, public(model))
		}
	}
	return handler.ProgressEvent{OperationStatus: handler.Success, ResourceModels: models}, nil
}
