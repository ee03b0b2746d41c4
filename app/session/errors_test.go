package session_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/guard"
)

func TestAsErrorClassifies(t *testing.T) {
	_, cfgErr := provider.Open(provider.Config{Provider: "ollama"})
	own := &session.Error{Code: session.CodeBusy, Message: "busy", Hint: "wait"}
	for _, tc := range []struct {
		err  error
		code string
	}{
		{own, session.CodeBusy},
		{fmt.Errorf("wrapped: %w", own), session.CodeBusy},
		{context.Canceled, session.CodeCanceled},
		{fmt.Errorf("run: %w", &guard.RefusedError{Reason: "it writes"}), session.CodeRefused},
		{cfgErr, session.CodeNoModel},
		{llm.Errorf("ollama", llm.Unreachable, "start it", nil, "not running"), session.CodeModelUnreachable},
		{llm.Errorf("ollama", llm.ModelNotFound, "pull it", nil, "no such model"), session.CodeNoModel},
		{llm.Errorf("openai", llm.Unauthorized, "check the key", nil, "bad key"), session.CodeModel},
		{errors.New("disk on fire"), session.CodeInternal},
	} {
		e := session.AsError(tc.err)
		if e.Code != tc.code || e.Message == "" {
			t.Errorf("%v: code %q message %q, want %q", tc.err, e.Code, e.Message, tc.code)
		}
	}
	if session.AsError(nil) != nil {
		t.Error("AsError(nil) should be nil")
	}
}
