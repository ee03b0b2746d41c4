package load

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Format is a file format Loupe reads.
type Format string

const (
	CSV     Format = "csv"
	TSV     Format = "tsv"
	JSON    Format = "json"
	Parquet Format = "parquet"
	XLSX    Format = "xlsx"
	DuckDB  Format = "duckdb"
	SQLite  Format = "sqlite"
)

// Compression of a text file, which DuckDB or Loupe undoes while reading.
type Compression string

const (
	None  Compression = ""
	Gzip  Compression = "gzip"
	Bzip2 Compression = "bzip2"
	Zstd  Compression = "zstd"
)

// kind is what detection concluded about a file.
type kind struct {
	format   Format
	comp     Compression
	encoding string // "", "utf-16le", "utf-16be"
	warning  string // e.g. the extension disagreed with the content
}

const headSize = 64 << 10

// detect decides a file's format from its first bytes, and from its name
// where the bytes leave it open (text formats). It never trusts the name
// over the content.
func detect(path string, head []byte) (kind, *FileError) {
	name := strings.ToLower(filepath.Base(path))
	k := kind{}
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		k.comp = Gzip
	case bytes.HasPrefix(head, []byte("BZh")) && strings.HasSuffix(name, ".bz2"):
		k.comp = Bzip2
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		k.comp = Zstd
	}
	inner := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".bz2"), ".zst")
	ext := filepath.Ext(inner)
	if k.comp != None {
		k.format = textFormat(ext, nil)
		if k.format == "" {
			k.format = CSV
		}
		return k, nil
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		k.format = Parquet
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		k.format = SQLite
	case len(head) >= 12 && string(head[8:12]) == "DUCK":
		k.format = DuckDB
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		if ext == ".xlsx" || ext == ".xlsm" || bytes.Contains(head, []byte("xl/")) {
			k.format = XLSX
		} else {
			return k, fileErr(path, "this is a ZIP archive, not a data file", "unzip it and open the files inside", ErrUnsupported)
		}
	case bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		if ext == ".xlsx" || ext == ".xlsm" {
			return k, fileErr(path, "the workbook is encrypted (password-protected)", "open it in Excel, remove the password (File › Info › Protect Workbook) and save it again", ErrUnsupported)
		}
		return k, fileErr(path, "this is an old Excel 97–2003 (.xls) or other Office binary file, which Loupe cannot read", "save it as .xlsx or CSV from Excel or LibreOffice and open that", ErrUnsupported)
	case bytes.HasPrefix(head, []byte("%PDF")):
		return k, fileErr(path, "this is a PDF document, not a data file", "export the table from the PDF's source as CSV or Excel", ErrUnsupported)
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return k, fileErr(path, "Arrow IPC files are not supported yet", "convert it to Parquet (e.g. pyarrow.parquet.write_table)", ErrUnsupported)
	}
	if k.format != "" {
		if want := binaryExt(ext); want != "" && want != k.format {
			k.warning = "named " + ext + " but holds " + string(k.format) + " data; loaded as " + string(k.format)
		}
		return k, nil
	}
	// Text from here on.
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		k.encoding = "utf-16le"
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		k.encoding = "utf-16be"
	}
	if k.encoding == "" && looksBinary(head) {
		if want := binaryExt(ext); want != "" {
			return k, fileErr(path, "the file is not a valid "+string(want)+" file (its header is missing or damaged)", "re-export it from its source; if it was downloaded, download it again", ErrUnsupported)
		}
		return k, fileErr(path, "the file holds binary data, not text", "open a CSV, TSV, JSON, Parquet, Excel (.xlsx), DuckDB or SQLite file", ErrUnsupported)
	}
	if want := binaryExt(ext); want != "" {
		return k, fileErr(path, "the name says "+string(want)+" but the file holds text", "rename it to .csv or .json if it is text data, or re-export the "+string(want)+" file", ErrUnsupported)
	}
	k.format = textFormat(ext, head)
	byName := textFormat(ext, nil)
	if k.encoding == "" && byName != "" && byName != k.format && !(byName == TSV && k.format == CSV) {
		k.warning = "named " + ext + " but holds " + string(k.format) + " data; loaded as " + string(k.format)
	}
	if byName == TSV && k.format == CSV {
		k.format = TSV
	}
	return k, nil
}

// textFormat picks CSV, TSV or JSON: from the content when head is given,
// else from the extension ("" when the extension says nothing).
func textFormat(ext string, head []byte) Format {
	if head != nil {
		t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
		if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			return JSON
		}
		return CSV
	}
	switch ext {
	case ".csv", ".txt", ".dat":
		return CSV
	case ".tsv", ".tab":
		return TSV
	case ".json", ".ndjson", ".jsonl":
		return JSON
	}
	return ""
}

func binaryExt(ext string) Format {
	switch ext {
	case ".parquet", ".pq":
		return Parquet
	case ".xlsx", ".xlsm":
		return XLSX
	case ".duckdb", ".ddb":
		return DuckDB
	case ".sqlite", ".sqlite3", ".db":
		return SQLite
	}
	return ""
}

// looksBinary reports whether head is unlikely to be text: many control
// bytes, or some together with invalid UTF-8. A stray NUL in a CSV passes.
func looksBinary(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	ctl := 0
	for _, b := range head {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' {
			ctl++
		}
	}
	ratio := float64(ctl) / float64(len(head))
	valid := utf8.Valid(trimPartialRune(head))
	return ratio > 0.10 || (ratio > 0.02 && !valid)
}

// trimPartialRune drops a rune cut off at the end of a buffer.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// readHead reads up to headSize bytes from the start of path.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, headSize)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return buf[:n], nil
}
