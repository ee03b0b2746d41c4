package load

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
)

// DuckDB's CSV sniffer tries each candidate dialect (delimiter, quote,
// escape) on every column, so on a wide file it is most of the cost of
// reading it: 30,000 columns × 4 rows took 9.1 s to load, 3.9 s with the
// dialect given (scripts/widemeasure). When a wide file is plain, Loupe
// can tell the dialect for certain by reading it, and gives it to DuckDB,
// which still detects the header and the column types.
const (
	// wideColumns is the width above which a file is checked for a
	// plain dialect; narrower files are cheap to sniff.
	wideColumns = 1000
	// plainScanLimit bounds the bytes read to check; a larger file is
	// left to DuckDB's sniffer.
	plainScanLimit = 64 << 20
)

// plainWide reports whether the delimited text file at path is wide and
// plain: more than wideColumns fields on every line, the same number on
// each, and none of the characters that could make DuckDB's sniffer pick
// another dialect (a quote, an apostrophe, a backslash, or another
// candidate delimiter). For such a file the dialect {delim, quote '"',
// escape '"'} reads exactly what the sniffer's would: there is nothing
// to quote or escape and only one delimiter. Any doubt (a read error, a
// ragged or blank line, a file over plainScanLimit) answers false.
func plainWide(path string, delim byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || info.Size() > plainScanLimit {
		return false
	}
	others := strings.ReplaceAll("\"'\\,;|\t", string(delim), "")
	r := bufio.NewReaderSize(f, 1<<20)
	fields, want, lineBytes := 1, -1, 0
	for {
		b, err := r.ReadByte()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false
		}
		switch {
		case b == '\n':
			if want < 0 {
				if fields <= wideColumns {
					return false // narrow: no need to read on
				}
				want = fields
			} else if fields != want {
				return false
			}
			fields, lineBytes = 1, 0
			continue
		case b == delim:
			fields++
		case strings.IndexByte(others, b) >= 0:
			return false
		}
		lineBytes++
	}
	if lineBytes > 0 && fields != want && want >= 0 {
		return false // a last line without a newline, ragged
	}
	return want > wideColumns
}
