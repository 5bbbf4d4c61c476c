package v1

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
)

// defaultMaxSize is the length limit, in characters, of a request string that
// names no limit of its own: the size of the database's short string columns.
const defaultMaxSize = 255

// checkJSONContentType refuses a request body that does not declare JSON: a
// browser sends text/plain, form and multipart bodies cross-site without a
// preflight, so accepting them would let another site act with credentials the
// browser keeps (basic auth). Gitea's binding answers 422 the same way.
func checkJSONContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return errs.Invalid("[]: Empty Content-Type: the request body must be JSON (Content-Type: application/json)")
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return errs.Invalid("[]: Unsupported Content-Type %q: the request body must be JSON (Content-Type: application/json)", ct)
	}
	return nil
}

// checkRequestStrings walks a decoded request value and refuses what the
// databases cannot store or were not sized for: a string with a NUL character
// (PostgreSQL refuses it; the others would store it), or a string longer than
// its field's limit. A struct field names its limit with the tag
// `binding:"MaxSize(n)"`, or `binding:"Text"` for text bounded only by the
// request size; any other string may hold defaultMaxSize characters.
func checkRequestStrings(v any) error {
	return checkValue(reflect.ValueOf(v), field{"body", "Body"}, defaultMaxSize)
}

// field names a request field: its JSON key (in the error's field list) and
// its Go name (in the message, as Gitea's binding names it).
type field struct{ key, title string }

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

func checkValue(v reflect.Value, f field, limit int) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkValue(v.Elem(), f, limit)
	case reflect.String:
		return checkString(f, v.String(), limit)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			key := jsonName(sf)
			if key == "-" {
				continue
			}
			fieldLimit, err := bindingLimit(sf)
			if err != nil {
				return err
			}
			if err := checkValue(v.Field(i), field{key, sf.Name}, fieldLimit); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessageType {
			return checkRawJSON(f, v.Bytes(), limit)
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64 data, not text
		}
		for i := 0; i < v.Len(); i++ {
			if err := checkValue(v.Index(i), f, limit); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := checkValue(iter.Key(), f, limit); err != nil {
				return err
			}
			if err := checkValue(iter.Value(), f, limit); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRawJSON checks the strings of JSON that a handler decodes later.
func checkRawJSON(f field, raw []byte, limit int) error {
	if len(raw) == 0 {
		return nil
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return nil // the handler reports malformed values itself
	}
	return checkValue(reflect.ValueOf(&decoded), f, limit)
}

// checkString applies the storable-text rules to one string.
func checkString(f field, s string, limit int) error {
	if err := storable(f, s); err != nil {
		return err
	}
	if limit > 0 && len(s) > limit && utf8.RuneCountInString(s) > limit {
		return errs.InvalidField(f.key, "[%s]: MaxSize (at most %d characters)", f.title, limit)
	}
	return nil
}

// storableText refuses text that one of the databases cannot store: a NUL
// character (PostgreSQL) or bytes that are not UTF-8.
func storableText(key, s string) error { return storable(field{key, fieldTitle(key)}, s) }

func storable(f field, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return errs.InvalidField(f.key, "[%s]: invalid text: it contains a NUL character", f.title)
	}
	if !utf8.ValidString(s) {
		return errs.InvalidField(f.key, "[%s]: invalid text: it is not UTF-8", f.title)
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// bindingLimit reads a field's length limit from its binding tag: 0 for
// "Text", n for "MaxSize(n)", defaultMaxSize otherwise.
func bindingLimit(f reflect.StructField) (int, error) {
	for _, rule := range strings.Split(f.Tag.Get("binding"), ";") {
		switch {
		case rule == "Text":
			return 0, nil
		case strings.HasPrefix(rule, "MaxSize(") && strings.HasSuffix(rule, ")"):
			n, err := strconv.Atoi(rule[len("MaxSize(") : len(rule)-1])
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("bad binding tag %q on field %s", rule, f.Name)
			}
			return n, nil
		}
	}
	return defaultMaxSize, nil
}
