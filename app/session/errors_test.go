package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

func TestFileErrorSaysWhyAndWhatToDo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "report.md")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "out.pdf") // a path through a file
	_, werr := os.Create(under)
	if werr == nil {
		t.Fatal("creating a file under a file succeeded")
	}
	e := session.FileError(under, "cannot write the PDF", werr)
	if e.Code != session.CodeFile || !strings.Contains(e.Message, under) || !strings.Contains(e.Message, "not a directory") {
		t.Errorf("message %q: want the path, the problem and the system's reason", e.Message)
	}
	if !strings.Contains(e.Hint, "is a file, not a folder") {
		t.Errorf("hint %q: want what to do about a file in the path", e.Hint)
	}
	if e := session.FileError("x", "cannot read", errors.New("no reason")); e.Message != "x: cannot read" {
		t.Errorf("an error without a system reason: message %q", e.Message)
	}
}
