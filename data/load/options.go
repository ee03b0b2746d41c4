package load

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// TextOptions are the import options of a delimited text file (see
// catalog.TextOptions): what the user says instead of what is detected.
type TextOptions = catalog.TextOptions

// Encodings are the values TextOptions.Encoding accepts.
var Encodings = []string{"utf-8", "latin-1", "utf-16"}

// ValidText checks o and returns it normalised ("tab" and `\t` become a
// tab; "," and ";" as written), or a *FileError for path whose hint says
// what is accepted.
func ValidText(path string, o TextOptions) (TextOptions, error) {
	bad := func(what, hint string) (TextOptions, error) {
		return o, fileErr(path, "the import options are not valid: "+what, hint, nil)
	}
	switch strings.ToLower(o.Delimiter) {
	case "tab", `\t`:
		o.Delimiter = "\t"
	}
	if n := len([]rune(o.Delimiter)); n > 1 || o.Delimiter == "\n" || o.Delimiter == "\r" || o.Delimiter == `"` {
		return bad(fmt.Sprintf("the delimiter %q is not one character", o.Delimiter), `use one character such as "," ";" "|" or "tab"`)
	}
	switch o.Decimal {
	case "", ",", ".":
	default:
		return bad(fmt.Sprintf("the decimal separator %q", o.Decimal), `use "," or "."`)
	}
	if o.Decimal != "" && o.Decimal == o.Delimiter {
		return bad("the decimal separator is the delimiter", "a file cannot use one character for both")
	}
	o.Header = strings.ToLower(o.Header)
	switch o.Header {
	case "", "yes", "no":
	case "true":
		o.Header = "yes"
	case "false":
		o.Header = "no"
	default:
		return bad(fmt.Sprintf("header %q", o.Header), `say "yes" (the first row names the columns) or "no"`)
	}
	o.Encoding = strings.ToLower(o.Encoding)
	switch o.Encoding {
	case "", "utf-8", "latin-1", "utf-16":
	case "utf8":
		o.Encoding = "utf-8"
	case "latin1", "iso-8859-1", "windows-1252", "cp1252":
		o.Encoding = "latin-1"
	case "utf16":
		o.Encoding = "utf-16"
	default:
		return bad(fmt.Sprintf("the encoding %q", o.Encoding), "use "+strings.Join(Encodings, ", "))
	}
	if o.SkipRows < 0 || o.SkipRows > 1_000_000 {
		return bad(fmt.Sprintf("skip %d rows", o.SkipRows), "skip between 0 and 1,000,000 lines")
	}
	return o, nil
}

// args are the read_csv arguments of the options the user set.
func textArgs(o TextOptions) []string {
	var args []string
	if o.Delimiter != "" {
		args = append(args, "delim = "+duck.QuoteString(o.Delimiter))
	}
	switch o.Header {
	case "yes":
		args = append(args, "header = true")
	case "no":
		args = append(args, "header = false")
	}
	switch o.Encoding {
	case "latin-1", "utf-16":
		args = append(args, "encoding = "+duck.QuoteString(o.Encoding))
	}
	if o.SkipRows > 0 {
		args = append(args, "skip = "+strconv.Itoa(o.SkipRows))
	}
	return args
}
