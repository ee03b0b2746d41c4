package app_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/profile"
	"github.com/loupeapp/loupe/tools/validate"
)

var updateFixtures = flag.Bool("update", false, "rewrite frontend/src/api/testdata from the Go types")

// dtoFixtures names every value the backend sends the frontend (the façade's
// DTOs and event payloads, the agent's events and outcome, the tools'
// displays) by its TypeScript interface in frontend/src/api/types.ts.
// frontend/src/api/types.test.ts type-checks each fixture against that
// interface with no key missing and none extra, so a field added, renamed or
// removed on one side and not the other fails a test.
var dtoFixtures = map[string]any{
	// Data
	"TopValue":       app.TopValue{},
	"DatasetColumn":  app.DatasetColumn{},
	"Dataset":        app.Dataset{},
	"DatasetSummary": app.DatasetSummary{},
	"LoadProgress":   app.LoadProgress{},
	"LoadReport":     app.LoadReport{},
	"FolderInfo":     app.FolderInfo{},
	"TextOptions":    app.TextOptions{},
	// Query
	"Column":       app.Column{},
	"Page":         app.Page{},
	"QueryResult":  app.QueryResult{},
	"SchemaNames":  app.SchemaNames{},
	"SchemaTable":  app.SchemaTable{},
	"ExportedFile": app.ExportedFile{},
	// Result views (sort, filter, column summaries)
	"SortOrder":     app.SortOrder{},
	"ColumnFilter":  app.ColumnFilter{},
	"ResultView":    app.ResultView{},
	"ViewedResult":  app.ViewedResult{},
	"ColumnSummary": app.ColumnSummary{},
	"ResultSummary": app.ResultSummary{},
	"HistoryEntry":  app.HistoryEntry{},
	// Tool displays
	"ToolTable":     tools.Table{},
	"ToolChart":     tools.Chart{},
	"Question":      tools.Question{},
	"ToolDisplay":   tools.Display{},
	"ToolView":      tools.View{},
	"ProfileData":   profile.Profile{},
	"ProfileColumn": profile.Column{},
	"VerdictData":   validate.Verdict{},
	// Agent events and outcome
	"Usage":        llm.Usage{},
	"CallEvent":    agent.CallEvent{},
	"ResultEvent":  agent.ResultEvent{},
	"ChartEvent":   agent.ChartEvent{},
	"AgentEvent":   agent.Event{},
	"NumbersEvent": agent.NumbersEvent{},
	"Finding":      agent.Finding{},
	"Evidence":     agent.Evidence{},
	"ToolCall":     llm.ToolCall{},
	"Message":      llm.Message{},
	"StepTime":     agent.StepTime{},
	"ToolTime":     agent.ToolTime{},
	"Meta":         agent.Meta{},
	"NumberCheck":  evidence.Check{},
	"Outcome":      agent.Outcome{},
	// Chat and runs
	"ChatSummary":    app.ChatSummary{},
	"Turn":           app.Turn{},
	"AnswerFeedback": app.AnswerFeedback{},
	"Chat":           app.Chat{},
	"RunEvents":      app.RunEvents{},
	"AskResult":      app.AskResult{},
	"ChatHit":        app.ChatHit{},
	"Snippet":        app.Snippet{},
	// Report
	"ReportChart":    app.ReportChart{},
	"Report":         app.Report{},
	"ReportNotice":   app.ReportNotice{},
	"ReportDelta":    app.ReportDelta{},
	"ReportVersion":  app.ReportVersion{},
	"ReportDiff":     app.ReportDiff{},
	"ReportDiffLine": app.ReportDiffLine{},
	// Settings, status, models, sandbox
	"Settings":        app.Settings{},
	"SettingsUpdate":  app.SettingsUpdate{},
	"ModelInfo":       app.ModelInfo{},
	"PullProgress":    app.PullProgress{},
	"Check":           app.Check{},
	"Status":          app.Status{},
	"SandboxProgress": app.SandboxProgress{},
	"SandboxBuilt":    app.SandboxBuilt{},
	"MCPSetup":        app.MCPSetup{},
	"MCPHost":         app.MCPHost{},
	"MCPCall":         app.MCPCall{},
	// Privacy and the outbox
	"PrivacyState":  app.PrivacyState{},
	"PrivacyOption": app.PrivacyLevel{},
	"SentRequest":   assemble.SentRequest{},
	"AnswerSent":    assemble.AnswerSent{},
	"PrivateColumn": privacy.Column{},
	// Connections
	"Connection":       app.Connection{},
	"RoleWarning":      remote.RoleWarning{},
	"ConnectionInput":  app.ConnectionInput{},
	"ConnectionCheck":  app.ConnectionCheck{},
	"ConnectionColumn": app.ConnectionColumn{},
	"ConnectionTable":  app.ConnectionTable{},
	"ConnectionSchema": app.ConnectionSchema{},
	"ImportProgress":   app.ImportProgress{},
	// Errors
	"ApiErrorShape": app.Error{},
}

const fixtureDir = "../frontend/src/api/testdata"

// TestDTOFixtures writes each DTO as the frontend receives it, once with
// every field set (testdata/NAME.json: which keys exist) and once empty
// (testdata/zero/NAME.json: which keys Go leaves out), and fails when a
// committed fixture differs: run
// `go test ./app -run TestDTOFixtures -update` after changing a DTO, then
// make frontend/src/api/types.ts follow (its test says where).
func TestDTOFixtures(t *testing.T) {
	want := map[string]bool{}
	for name, v := range dtoFixtures {
		file := name + ".json"
		want[file] = true
		zero, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatalf("marshal %T: %v", v, err)
		}
		golden(t, name, filepath.Join(fixtureDir, file), marshalFull(t, v))
		golden(t, name, filepath.Join(fixtureDir, "zero", file), append(zero, '\n'))
	}
	// A fixture of a type no longer sent is stale too.
	var stale []string
	for _, dir := range []string{fixtureDir, filepath.Join(fixtureDir, "zero")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") && !want[e.Name()] {
				stale = append(stale, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		if *updateFixtures {
			for _, s := range stale {
				_ = os.Remove(s)
			}
		} else {
			t.Errorf("fixtures of no DTO in dtoFixtures: %v", stale)
		}
	}
}

// golden compares got with the fixture at path, or writes it with -update.
func golden(t *testing.T, name, path string, got []byte) {
	t.Helper()
	if *updateFixtures {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v (run go test ./app -run TestDTOFixtures -update)", name, err)
		return
	}
	if !bytes.Equal(old, got) {
		t.Errorf("%s: the Go type changed; %s is stale: run go test ./app -run TestDTOFixtures -update, then make %s in frontend/src/api/types.ts follow\nnow:\n%s", name, path, name, got)
	}
}

// TestFillSetsEveryField guards the filler: a struct marshalled with every
// field set has no omitted key and no null.
func TestFillSetsEveryField(t *testing.T) {
	type inner struct {
		N int `json:"n,omitempty"`
	}
	type sample struct {
		S   string            `json:"s,omitempty"`
		P   *inner            `json:"p,omitempty"`
		L   []inner           `json:"l,omitempty"`
		M   map[string]string `json:"m,omitempty"`
		A   any               `json:"a,omitempty"`
		Raw json.RawMessage   `json:"raw,omitempty"`
		T   time.Time         `json:"t"`
		B   bool              `json:"b,omitempty"`
		F   float64           `json:"f,omitempty"`
		Hid string            `json:"-"`
	}
	got := string(marshalFull(t, sample{}))
	for _, key := range []string{`"s"`, `"p"`, `"n"`, `"l"`, `"m"`, `"a"`, `"raw"`, `"t"`, `"b"`, `"f"`} {
		if !strings.Contains(got, key) {
			t.Errorf("key %s missing from %s", key, got)
		}
	}
	if strings.Contains(got, "null") || strings.Contains(got, "Hid") {
		t.Errorf("null or hidden field in %s", got)
	}
}

// marshalFull marshals v with every field set (see fill), indented.
func marshalFull(t *testing.T, v any) []byte {
	t.Helper()
	p := reflect.New(reflect.TypeOf(v))
	fill(p.Elem(), map[reflect.Type]bool{})
	b, err := json.MarshalIndent(p.Interface(), "", "  ")
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return append(b, '\n')
}

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage(nil))
)

// fill sets every field of v, recursively, to a non-zero value, so that
// marshalling omits no key: strings "x", numbers 1, booleans true, one
// element in each slice and map, pointers allocated. A struct inside itself
// (a recursive type) is left zero: open holds the structs being filled.
func fill(v reflect.Value, open map[reflect.Type]bool) {
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
		return
	case v.Type() == rawType:
		v.Set(reflect.ValueOf(json.RawMessage(`{"x":1}`)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), open)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), open)
		v.Set(s)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), open)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, open)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, open)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(map[string]any{"x": 1}))
		}
	case reflect.Struct:
		if open[v.Type()] {
			return
		}
		open[v.Type()] = true
		defer delete(open, v.Type())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			fill(v.Field(i), open)
		}
	default:
		panic(fmt.Sprintf("fill: no value for %s", v.Type()))
	}
}
