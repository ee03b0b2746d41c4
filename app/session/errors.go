package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/llm/valuegate"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools/chart"
)

// Error codes the frontend switches on. The set only grows.
const (
	CodeNotFound         = "not_found"         // no such dataset, chat, run, result or report
	CodeRefused          = "refused"           // the read-only guard refused the SQL
	CodeSQL              = "sql"               // a mistake in the SQL (DuckDB's message)
	CodeTimeout          = "timeout"           // a query ran past its time limit
	CodeFile             = "file"              // a file cannot be read or written
	CodeModelUnreachable = "model_unreachable" // nothing answers at the model server's address
	CodeModel            = "model"             // the model server answered with an error
	CodeNoModel          = "no_model"          // no model chosen, or the chosen one is not installed
	CodeKeychain         = "keychain"          // the OS keychain cannot be used
	CodeBusy             = "busy"              // the chat (or report) already has a run going
	CodeCanceled         = "canceled"          // stopped by the user or by shutdown
	CodeInvalid          = "invalid"           // an argument the frontend should not have sent
	CodeInternal         = "internal"          // anything else: a bug or a broken machine
)

// Error is how the session layer fails in words a user can act on: a code
// the frontend switches on, a message in plain words, and a hint saying
// what to do. Every bound method of the window (package app) fails with one.
//
// How it reaches the frontend: the window passes app.FormatError to Wails
// as its ErrorFormatter, so a rejected promise carries the object {code,
// message, hint}; web mode sends the same object as the response body. Error()
// itself is that object as a JSON string, so wherever the error travels as
// a string (Wails without the formatter, logs) the fields survive and
// frontend/src/api parses them back.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	Err     error  `json:"-"` // the cause, for errors.Is/As and logs
}

func (e *Error) Error() string {
	b, err := json.Marshal(e)
	if err != nil { // cannot happen: three strings
		return e.Code + ": " + e.Message
	}
	return string(b)
}

func (e *Error) Unwrap() error { return e.Err }

// NewError is an error with a code, a message and a hint, and no cause.
func NewError(code, message, hint string) *Error {
	return &Error{Code: code, Message: message, Hint: hint}
}

// Wrap turns err into an *Error (nil stays nil).
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return AsError(err)
}

// AsError turns any error into an *Error, classifying the errors of the
// packages below (guard refusals, DuckDB mistakes, file problems, provider
// failures, cancellation).
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var (
		e           *Error
		refused     *guard.RefusedError
		timeout     *query.TimeoutError
		file        *load.FileError
		cfg         *provider.ConfigError
		model       *llm.Error
		inUse       *report.FolderInUseError
		de          *duckdb.Error
		editProblem *chart.EditProblem
	)
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCanceled, Message: "stopped", Hint: "", Err: err}
	case errors.As(err, &refused):
		return &Error{Code: CodeRefused, Message: "Refused: " + refused.Reason,
			Hint: "Loupe only runs read-only queries: write one SELECT over the loaded datasets.", Err: err}
	case errors.Is(err, guard.ErrEmpty):
		return &Error{Code: CodeInvalid, Message: "The query is empty.", Hint: "Write one SELECT statement.", Err: err}
	case errors.As(err, &timeout):
		return &Error{Code: CodeTimeout, Message: "The query stopped at its " + timeout.Limit.String() + " time limit.",
			Hint: "Filter earlier, aggregate, or sample (USING SAMPLE 10%) to make it cheaper.", Err: err}
	case errors.As(err, &file):
		return &Error{Code: CodeFile, Message: file.Path + ": " + file.Problem, Hint: file.Hint, Err: err}
	case errors.As(err, &inUse):
		return &Error{Code: CodeFile, Message: "The folder " + inUse.Dir + " holds files Loupe did not write.",
			Hint: "Choose an empty or new folder.", Err: err}
	case errors.As(err, &cfg):
		code := CodeInvalid
		if errors.Is(err, provider.ErrNoModel) {
			code = CodeNoModel
		}
		return &Error{Code: code, Message: UpperFirst(cfg.Message), Hint: cfg.Hint, Err: err}
	case errors.As(err, &model):
		return modelError(model)
	case errors.As(err, &editProblem):
		return &Error{Code: CodeInvalid, Message: editProblem.Problem, Hint: "Fix the spec, or go back to the chart drawn with the answer.", Err: err}
	case errors.Is(err, results.ErrView):
		return &Error{Code: CodeInvalid, Message: err.Error(), Hint: "Change or clear the column's filter.", Err: err}
	case errors.Is(err, catalog.ErrNotFound), errors.Is(err, results.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: UpperFirst(err.Error()), Hint: "", Err: err}
	case errors.As(err, &de):
		return sqlError(de)
	case errors.Is(err, valuegate.ErrValueInRequest):
		return &Error{Code: CodeInvalid, Message: "The schema privacy level stopped a request that held a value of your data: nothing was sent.",
			Hint: "Ask again, or choose masked or open for this model server in Settings → Privacy (or --privacy); the log names the step.", Err: err}
	}
	return &Error{Code: CodeInternal, Message: UpperFirst(err.Error()),
		Hint: "This looks like a bug or a problem with this computer; the log has details.", Err: err}
}

func modelError(e *llm.Error) *Error {
	code := CodeModel
	switch e.Kind {
	case llm.Unreachable:
		code = CodeModelUnreachable
	case llm.ModelNotFound:
		code = CodeNoModel
	}
	return &Error{Code: code, Message: UpperFirst(e.Message), Hint: e.Hint, Err: e}
}

// sqlError splits DuckDB's message: the first line is what went wrong, the
// rest (candidates, "Did you mean", the LINE marker) is the hint.
func sqlError(de *duckdb.Error) *Error {
	msg, rest, _ := strings.Cut(strings.TrimSpace(de.Msg), "\n")
	hint := strings.TrimSpace(rest)
	if hint == "" {
		hint = "Fix the query and run it again."
	}
	return &Error{Code: CodeSQL, Message: msg, Hint: hint, Err: de}
}

// UpperFirst is s with its first letter upper-case (ASCII).
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// FileError is a file that could not be written or read, with what to do.
// The message ends with the system's reason ("not a directory", "no space
// left on device") when err carries one.
func FileError(path, problem string, err error) *Error {
	hint := "Check that the folder exists, that you may write to it, and that the disk is not full."
	switch {
	case errors.Is(err, fs.ErrPermission):
		hint = "You may not write there: choose a folder you own."
	case errors.Is(err, syscall.ENOTDIR):
		hint = "A part of the path is a file, not a folder: choose another place."
	case errors.Is(err, syscall.ENOSPC):
		hint = "The disk is full: free some space or choose another disk."
	}
	msg := fmt.Sprintf("%s: %s", path, problem)
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg += " (" + errno.Error() + ")"
	}
	return &Error{Code: CodeFile, Message: msg, Hint: hint, Err: err}
}
