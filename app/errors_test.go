package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/guard"
)

func TestAsErrorClassifies(t *testing.T) {
	_, cfgErr := provider.Open(provider.Config{Provider: "ollama"})
	own := &app.Error{Code: app.CodeBusy, Message: "busy", Hint: "wait"}
	for _, tc := range []struct {
		err  error
		code string
	}{
		{own, app.CodeBusy},
		{fmt.Errorf("wrapped: %w", own), app.CodeBusy},
		{context.Canceled, app.CodeCanceled},
		{fmt.Errorf("run: %w", &guard.RefusedError{Reason: "it writes"}), app.CodeRefused},
		{cfgErr, app.CodeNoModel},
		{llm.Errorf("ollama", llm.Unreachable, "start it", nil, "not running"), app.CodeModelUnreachable},
		{llm.Errorf("ollama", llm.ModelNotFound, "pull it", nil, "no such model"), app.CodeNoModel},
		{llm.Errorf("openai", llm.Unauthorized, "check the key", nil, "bad key"), app.CodeModel},
		{errors.New("disk on fire"), app.CodeInternal},
	} {
		e := app.AsError(tc.err)
		if e.Code != tc.code || e.Message == "" {
			t.Errorf("%v: code %q message %q, want %q", tc.err, e.Code, e.Message, tc.code)
		}
	}
	if app.AsError(nil) != nil {
		t.Error("AsError(nil) should be nil")
	}
}

// Error() is the JSON object the frontend parses when the error arrives
// as a string; FormatError gives Wails the same object.
func TestErrorTravelsAsJSON(t *testing.T) {
	e := &app.Error{Code: app.CodeSQL, Message: `Table "x" does not exist`, Hint: "Did you mean \"y\"?", Err: errors.New("cause")}
	var got map[string]string
	if err := json.Unmarshal([]byte(e.Error()), &got); err != nil {
		t.Fatal(err)
	}
	if got["code"] != "sql" || got["message"] != e.Message || got["hint"] != e.Hint || len(got) != 3 {
		t.Errorf("Error() = %s", e.Error())
	}
	b, _ := json.Marshal(app.FormatError(fmt.Errorf("call: %w", e)))
	if string(b) != e.Error() {
		t.Errorf("FormatError gives %s, want %s", b, e.Error())
	}
}
