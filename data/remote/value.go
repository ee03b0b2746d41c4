package remote

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loupeapp/loupe/data/query"
)

// Normalize turns a value a driver returned into one that encodes to JSON
// and reads the way the database's own client shows it: integers exact
// (as text when they do not fit an int64), NaN and infinities as strings,
// dates as 2006-01-02, timestamps without a zone unless the type has one,
// binary data as \x hex. typ is the column's type name as the server
// reports it (any case); drivers convert their own special types first.
func Normalize(v any, typ string) any {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Sprint(x)
		}
		return int64(x)
	case float64:
		return query.Finite(x)
	case float32:
		return query.Finite(float64(x))
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		return x.String()
	case time.Time:
		return query.FormatTime(x, typ)
	case time.Duration:
		return x.String()
	case [16]byte:
		return formatUUID(x)
	case netip.Prefix:
		return x.String()
	case netip.Addr:
		return x.String()
	case []byte:
		if utf8.Valid(x) && !isBinary(typ) {
			return string(x)
		}
		return `\x` + hex.EncodeToString(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalize(e, elementType(typ))
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalize(e, "")
		}
		return out
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func formatUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func isBinary(typ string) bool {
	u := strings.ToUpper(typ)
	return strings.Contains(u, "BLOB") || strings.Contains(u, "BINARY") || u == "BYTEA" || u == "BIT"
}

// elementType is the element type of an array type name ("_INT4",
// "INTEGER[]"), or "".
func elementType(typ string) string {
	if strings.HasPrefix(typ, "_") {
		return typ[1:]
	}
	if strings.HasSuffix(typ, "]") {
		if i := strings.LastIndexByte(typ, '['); i > 0 {
			return typ[:i]
		}
	}
	return ""
}
