package v1

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// maxJSONBody bounds request bodies decoded as JSON.
const maxJSONBody = 8 << 20

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	if v == nil {
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// handle adapts a handler that returns its failure: the error is answered
// by fail, so handlers need not repeat it after every step.
func (a *API) handle(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			a.fail(w, r, err)
		}
	}
}

// statusError is a refusal answered with status and message in Gitea's shape.
func statusError(status int, msg string) error {
	return errs.Forbidden("%s", msg).WithStatus(status)
}

// empty answers with a status and no body (204, 205).
func empty(w http.ResponseWriter, status int) { w.WriteHeader(status) }

// fail writes a domain error in Gitea's error shape with the status its kind maps to.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *errs.Error
	if !errors.As(err, &e) && db.IsDataError(err) {
		slog.WarnContext(r.Context(), "api input refused by the database", "method", r.Method, "path", r.URL.Path, "err", err)
		e = errs.Invalid("a value is too long or holds a character that cannot be stored")
	}
	if e == nil {
		if r.Context().Err() != nil {
			// The client went away mid-request: nobody reads the answer,
			// and it is not the server's fault.
			slog.DebugContext(r.Context(), "api request canceled", "method", r.Method, "path", r.URL.Path, "err", err)
			return
		}
		slog.ErrorContext(r.Context(), "api internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		msg := "internal server error"
		if isAdmin(r) {
			msg = err.Error()
		}
		a.errorJSON(w, http.StatusInternalServerError, msg)
		return
	}
	status := e.Status
	if status == 0 {
		status = statusOf(e.Kind)
	}
	if status >= 500 {
		slog.ErrorContext(r.Context(), "api error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	body := types.APIError{Message: e.Error(), URL: a.swaggerURL}
	if status == http.StatusNotFound {
		body.Errors = []string{e.Error()}
	}
	writeJSON(w, status, body)
}

func statusOf(k errs.Kind) int {
	switch k {
	case errs.KindNotFound:
		return http.StatusNotFound
	case errs.KindAlreadyExists, errs.KindConflict:
		return http.StatusConflict
	case errs.KindInvalid:
		return http.StatusUnprocessableEntity
	case errs.KindForbidden:
		return http.StatusForbidden
	case errs.KindUnauthorized:
		return http.StatusUnauthorized
	case errs.KindBadRequest:
		return http.StatusBadRequest
	case errs.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case errs.KindTooManyRequests:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

func (a *API) errorJSON(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, types.APIError{Message: msg, URL: a.swaggerURL})
}

// notFound answers 404 in Gitea's shape.
func (a *API) notFound(w http.ResponseWriter, r *http.Request) {
	a.fail(w, r, errs.NotFound("The target couldn't be found."))
}

// decode reads a JSON body into v. Malformed JSON and wrong types answer 422
// naming the field, as Gitea's binding does.
//
// The body must declare JSON (checkJSONContentType), and every string in it
// must be storable and within its field's limit (checkRequestStrings).
func decode(r *http.Request, v any) error {
	body := bufio.NewReader(http.MaxBytesReader(nil, r.Body, maxJSONBody))
	if _, err := body.Peek(1); errors.Is(err, io.EOF) {
		return errs.Invalid("request body is empty: a JSON object is expected")
	}
	if err := checkJSONContentType(r); err != nil {
		return err
	}
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, io.EOF):
			return errs.Invalid("request body is empty: a JSON object is expected")
		case errors.As(err, &te):
			field := te.Field
			if field == "" {
				field = "body"
			}
			return errs.InvalidField(field, "[%s]: must be of type %s, got %s", fieldTitle(field), te.Type.String(), te.Value)
		case errors.As(err, &se):
			return errs.Invalid("invalid JSON body: %v (at byte %d)", se, se.Offset)
		case errors.As(err, &mbe):
			return (&errs.Error{Kind: errs.KindTooLarge, Message: fmt.Sprintf("request body is larger than %d bytes", maxJSONBody)})
		default:
			return errs.Invalid("invalid JSON body: %v", err)
		}
	}
	if dec.More() {
		return errs.Invalid("invalid JSON body: unexpected data after the JSON value")
	}
	return checkRequestStrings(v)
}

// fieldTitle renders a JSON key like Gitea's binding field names: full_name -> FullName.
func fieldTitle(key string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// required returns a 422 in Gitea's binding form when v is blank.
func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return errs.InvalidField(field, "[%s]: Required", fieldTitle(field))
	}
	return nil
}

// maxLen returns a 422 in Gitea's binding form when v is longer than n characters.
func maxLen(field, v string, n int) error {
	if len([]rune(v)) > n {
		return errs.InvalidField(field, "[%s]: MaxSize (at most %d characters)", fieldTitle(field), n)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(list ...error) error {
	for _, e := range list {
		if e != nil {
			return e
		}
	}
	return nil
}
