package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// args are profile_data's arguments once decoded.
type args struct {
	Table   string
	Columns []string
}

const wantArgs = `profile_data needs {"table": string, "columns": [string] (optional)}`

// decodeArgs reads the arguments leniently: the object or a JSON string
// of it; columns as a list or a comma-separated string.
func decodeArgs(raw json.RawMessage) (args, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return args{}, wantArgs + ": " + err.Error()
		}
		raw = []byte(s)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return args{}, wantArgs + ": the arguments are not a JSON object"
	}
	var a args
	for _, k := range []string{"table", "dataset", "table_name", "name"} {
		if json.Unmarshal(m[k], &a.Table) == nil && a.Table != "" {
			break
		}
	}
	a.Table = strings.TrimSpace(a.Table)
	if a.Table == "" {
		return args{}, wantArgs + `: missing "table"`
	}
	cols, ok := m["columns"]
	if !ok {
		cols = m["column"]
	}
	if c := bytes.TrimSpace(cols); len(c) > 0 && string(c) != "null" {
		var list []string
		var one string
		switch {
		case json.Unmarshal(c, &list) == nil:
		case json.Unmarshal(c, &one) == nil:
			list = strings.Split(one, ",")
		default:
			return args{}, wantArgs + fmt.Sprintf(`: "columns" must be a list of column names, got %s`, c)
		}
		for _, s := range list {
			if s = strings.TrimSpace(s); s != "" {
				a.Columns = append(a.Columns, s)
			}
		}
	}
	return a, ""
}
