// Package errs defines the typed errors that domain services return. The API
// layer maps each kind to one HTTP status in one place.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies a domain error.
type Kind int

// The error kinds.
const (
	KindInternal        Kind = iota
	KindNotFound             // 404
	KindAlreadyExists        // 409 (or 422 where Gitea answers so)
	KindInvalid              // 422
	KindForbidden            // 403
	KindUnauthorized         // 401
	KindConflict             // 409
	KindBadRequest           // 400
	KindTooLarge             // 413
	KindTooManyRequests      // 429, with RetryAfter
)

// Error is a domain error with a kind and a user-facing message.
type Error struct {
	Kind    Kind
	Message string
	// Status overrides the status the kind maps to, where Gitea answers differently.
	Status int
	// Fields names the request fields that failed validation.
	Fields []string
	// RetryAfter is the number of seconds after which a refused
	// request may be tried again (KindTooManyRequests).
	RetryAfter int
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func newf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// NotFound reports a missing object.
func NotFound(format string, args ...any) *Error { return newf(KindNotFound, format, args...) }

// AlreadyExists reports a duplicate.
func AlreadyExists(format string, args ...any) *Error {
	return newf(KindAlreadyExists, format, args...)
}

// Invalid reports input that fails validation (422).
func Invalid(format string, args ...any) *Error { return newf(KindInvalid, format, args...) }

// InvalidField reports a validation failure of one named field (422).
func InvalidField(field, format string, args ...any) *Error {
	e := newf(KindInvalid, format, args...)
	e.Fields = []string{field}
	return e
}

// Forbidden reports a refused action (403).
func Forbidden(format string, args ...any) *Error { return newf(KindForbidden, format, args...) }

// Unauthorized reports a missing or wrong credential (401).
func Unauthorized(format string, args ...any) *Error {
	return newf(KindUnauthorized, format, args...)
}

// Conflict reports a state conflict (409).
func Conflict(format string, args ...any) *Error { return newf(KindConflict, format, args...) }

// BadRequest reports a malformed request (400).
func BadRequest(format string, args ...any) *Error { return newf(KindBadRequest, format, args...) }

// TooManyRequests refuses a request for now (429): it may be tried again
// after retryAfter seconds.
func TooManyRequests(retryAfter int, format string, args ...any) *Error {
	e := newf(KindTooManyRequests, format, args...)
	e.RetryAfter = retryAfter
	return e
}

// WithStatus returns a copy of e answering with status instead of the kind's.
func (e *Error) WithStatus(status int) *Error {
	c := *e
	c.Status = status
	return &c
}

// Is reports whether err is a domain error of kind k.
func Is(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// IsNotFound reports whether err is a not-found error.
func IsNotFound(err error) bool { return Is(err, KindNotFound) }
