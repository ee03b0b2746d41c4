package profile

import (
	"encoding/json"
	"strings"

	targs "github.com/loupeapp/loupe/tools/args"
)

var params = targs.Params{Tool: Name, IgnoreUnknown: true, List: []targs.Param{
	{Name: "table", Type: targs.String, Required: true, Doc: "dataset name, as listed", Aliases: []string{"table_name", "dataset", "name"}},
	{Name: "columns", Type: targs.Strings, Doc: "columns to profile; all when omitted", Aliases: []string{"column", "cols"}},
}}

// args are profile_data's arguments once decoded.
type args struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
}

// decodeArgs reads the arguments leniently (see tools/args); a list of
// columns may also come as one comma-separated string.
func decodeArgs(raw json.RawMessage) (args, error) {
	var a args
	if err := params.Decode(raw, &a); err != nil {
		return args{}, err
	}
	a.Table = strings.TrimSpace(a.Table)
	var cols []string
	for _, c := range a.Columns {
		for _, s := range strings.Split(c, ",") {
			if s = strings.TrimSpace(s); s != "" {
				cols = append(cols, s)
			}
		}
	}
	a.Columns = cols
	return a, nil
}
