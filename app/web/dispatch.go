// Package web serves the App façade over HTTP on loopback, for end-to-end
// tests and frontend development (web mode; `loupe serve`): POST
// /api/<Method> with a JSON array of arguments calls the method of the same
// name, GET /api/events streams the events the window would receive as
// Server-Sent Events, and every other path serves the built frontend.
// It is never part of the desktop app, which opens no port.
package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"

	"github.com/loupeapp/loupe/app"
)

// hooks are App's exported methods that are not part of the frontend's
// API (Wails does not bind them either).
var hooks = map[string]bool{"Startup": true, "Shutdown": true}

var errorType = reflect.TypeFor[error]()

// method is one callable method of the App.
type method struct {
	name   string
	fn     reflect.Value // bound to the App
	params []reflect.Type
	result reflect.Type // nil when the method returns only an error
}

// methods lists a's bound methods. Every one must return error or (T,
// error), as Wails requires of the methods it binds with a failure path.
func methods(a *app.App) (map[string]*method, error) {
	v := reflect.ValueOf(a)
	t := v.Type()
	out := map[string]*method{}
	for i := range t.NumMethod() {
		m := t.Method(i)
		if hooks[m.Name] {
			continue
		}
		ft := m.Type // includes the receiver
		mm := &method{name: m.Name, fn: v.Method(i)}
		for j := 1; j < ft.NumIn(); j++ {
			mm.params = append(mm.params, ft.In(j))
		}
		switch {
		case ft.NumOut() == 1 && ft.Out(0) == errorType:
		case ft.NumOut() == 2 && ft.Out(1) == errorType:
			mm.result = ft.Out(0)
		default:
			return nil, fmt.Errorf("web: App.%s must return error or (T, error)", m.Name)
		}
		out[m.Name] = mm
	}
	return out, nil
}

// names returns the method names, sorted.
func names(ms map[string]*method) []string {
	out := make([]string, 0, len(ms))
	for n := range ms {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// call decodes body (a JSON array of the arguments) and calls m.
func (m *method) call(body []byte) (any, error) {
	var raw []json.RawMessage
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("[]")
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, &app.Error{Code: app.CodeInvalid, Message: "The body must be a JSON array of the arguments: " + err.Error()}
	}
	if len(raw) != len(m.params) {
		return nil, &app.Error{Code: app.CodeInvalid,
			Message: fmt.Sprintf("%s takes %d arguments, got %d.", m.name, len(m.params), len(raw))}
	}
	args := make([]reflect.Value, len(raw))
	for i, r := range raw {
		p := reflect.New(m.params[i])
		if err := json.Unmarshal(r, p.Interface()); err != nil {
			return nil, &app.Error{Code: app.CodeInvalid,
				Message: fmt.Sprintf("%s: argument %d is not a %s: %v", m.name, i+1, m.params[i], err)}
		}
		args[i] = p.Elem()
	}
	out := m.fn.Call(args)
	if errV := out[len(out)-1]; !errV.IsNil() {
		return nil, errV.Interface().(error)
	}
	if m.result == nil {
		return nil, nil
	}
	return out[0].Interface(), nil
}

// statusOf is the HTTP status of an error code.
func statusOf(code string) int {
	switch code {
	case app.CodeNotFound:
		return http.StatusNotFound
	case app.CodeBusy, app.CodeCanceled:
		return http.StatusConflict
	case app.CodeModelUnreachable, app.CodeModel:
		return http.StatusBadGateway
	case app.CodeInternal, "":
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}
