package app

import "github.com/loupeapp/loupe/app/session"

// Error is what every bound method returns when it fails (see
// session.Error): a code the frontend switches on, a message and a hint.
type Error = session.Error

// Error codes the frontend switches on (session's). The set only grows.
const (
	CodeNotFound         = session.CodeNotFound
	CodeRefused          = session.CodeRefused
	CodeSQL              = session.CodeSQL
	CodeTimeout          = session.CodeTimeout
	CodeFile             = session.CodeFile
	CodeModelUnreachable = session.CodeModelUnreachable
	CodeModel            = session.CodeModel
	CodeNoModel          = session.CodeNoModel
	CodeKeychain         = session.CodeKeychain
	CodeBusy             = session.CodeBusy
	CodeCanceled         = session.CodeCanceled
	CodeInvalid          = session.CodeInvalid
	CodeInternal         = session.CodeInternal
)

func newError(code, message, hint string) *Error { return session.NewError(code, message, hint) }

// FormatError is the Wails ErrorFormatter: the rejected promise's value is
// the *Error (encoded as {code, message, hint}).
func FormatError(err error) any { return AsError(err) }

// AsError turns any error into an *Error (session.AsError).
func AsError(err error) *Error { return session.AsError(err) }

func upperFirst(s string) string { return session.UpperFirst(s) }
