package mysql

import (
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/data/remote"
)

// normalize converts a scanned value to a JSON-ready one. The text
// protocol hands most values over as bytes: numbers are parsed by their
// column type, BIT becomes an integer, binary types become \x hex.
func normalize(v any, typ string) any {
	b, ok := v.([]byte)
	if !ok {
		return remote.Normalize(v, typ)
	}
	t := strings.TrimPrefix(strings.ToUpper(typ), "UNSIGNED ")
	s := string(b)
	switch t {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "YEAR":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		return s // an unsigned BIGINT past int64
	case "DECIMAL", "NUMERIC", "FLOAT", "DOUBLE", "REAL":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return remote.Normalize(f, typ)
		}
		return s
	case "BIT":
		var n uint64
		for _, c := range b {
			n = n<<8 | uint64(c)
		}
		return remote.Normalize(n, typ)
	}
	return remote.Normalize(b, typ)
}
