package results

// Rough Go memory costs, in bytes, of the pieces of a held result.
const (
	sliceHeader = 24
	iface       = 16
	stringHead  = 16
	mapEntry    = 48
	entryBase   = 256
)

// estimate is the approximate memory an entry holds: its rows with their
// values, its column names and its SQL. Exact figures do not matter; the
// estimate must grow with the data so the byte cap bounds real memory.
func estimate(e *Entry) int64 {
	n := int64(entryBase + len(e.SQL))
	for _, c := range e.Columns {
		n += int64(2*stringHead + len(c.Name) + len(c.Type))
	}
	for _, row := range e.Rows {
		n += sliceHeader
		for _, v := range row {
			n += iface + value(v)
		}
	}
	return n
}

// value is the heap size a JSON-ready value adds beyond its interface.
func value(v any) int64 {
	switch x := v.(type) {
	case nil, bool:
		return 0
	case string:
		return stringHead + int64(len(x))
	case []any:
		n := int64(sliceHeader)
		for _, e := range x {
			n += iface + value(e)
		}
		return n
	case map[string]any:
		var n int64
		for k, e := range x {
			n += mapEntry + int64(len(k)) + value(e)
		}
		return n
	}
	return 8
}
