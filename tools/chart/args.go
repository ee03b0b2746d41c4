package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// args are create_chart's arguments once decoded.
type args struct {
	Title string
	SQL   string
	Spec  map[string]any
}

// decodeArgs reads the model's arguments leniently: the object itself or a
// JSON string holding it; spec as an object or as a JSON string. A
// problem comes back as a message for the model.
func decodeArgs(raw json.RawMessage) (args, string) {
	const want = `create_chart needs {"title": string, "sql": string, "spec": object}`
	obj, err := fields(raw)
	if err != nil {
		return args{}, want + ": the arguments are not a JSON object (" + err.Error() + ")"
	}
	var a args
	var missing []string
	a.Title = text(obj["title"])
	a.SQL = strings.TrimSpace(text(obj["sql"]))
	if a.SQL == "" {
		// Models often reach for the names of other tools' arguments.
		for _, k := range []string{"query", "sql_query", "sqlQuery"} {
			if s := strings.TrimSpace(text(obj[k])); s != "" {
				a.SQL = s
				break
			}
		}
	}
	if a.SQL == "" {
		missing = append(missing, `"sql"`)
	}
	specRaw, ok := obj["spec"]
	if !ok {
		for _, k := range []string{"vega_lite_spec", "vegaLiteSpec", "vegalite", "chart"} {
			if specRaw, ok = obj[k]; ok {
				break
			}
		}
	}
	if !ok || isNull(specRaw) {
		missing = append(missing, `"spec"`)
	} else {
		spec, err := object(specRaw)
		if err != nil {
			return args{}, want + `: "spec" must be a Vega-Lite object (or a JSON string of one): ` + err.Error()
		}
		a.Spec = spec
	}
	if len(missing) > 0 {
		return args{}, want + ": missing " + strings.Join(missing, " and ")
	}
	if a.Title == "" {
		if t, ok := a.Spec["title"].(string); ok {
			a.Title = t
		}
	}
	return a, ""
}

// fields decodes raw as a JSON object into its members, unwrapping one
// level of string encoding.
func fields(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw, err := unwrap(raw)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("null")
	}
	return m, nil
}

// unwrap returns raw, or the JSON text a JSON string in raw holds.
func unwrap(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = []byte(strings.TrimSpace(s))
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty")
	}
	return raw, nil
}

// object decodes raw as a JSON object of any values (numbers kept as
// json.Number), unwrapping one level of string encoding.
func object(raw json.RawMessage) (map[string]any, error) {
	raw, err := unwrap(raw)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("null")
	}
	return m, nil
}

func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}
