package cli

import (
	"flag"

	"github.com/loupeapp/loupe/data/load"
)

// textFlags declares the import options of a delimited text file on fs;
// the returned options are filled when fs is parsed. The load checks them
// (load.ValidText) and says what is accepted.
func textFlags(fs *flag.FlagSet) *load.TextOptions {
	o := &load.TextOptions{}
	fs.StringVar(&o.Delimiter, "delimiter", "", `CSV/TSV: the field delimiter, one character ("," ";" "|" or tab); detected when not given`)
	fs.StringVar(&o.Decimal, "decimal", "", `CSV/TSV: the decimal separator, "," or "." ("12,50" with ","); detected when not given`)
	fs.StringVar(&o.Header, "header", "", `CSV/TSV: whether the first row names the columns, "yes" or "no"; detected when not given`)
	fs.StringVar(&o.Encoding, "encoding", "", `CSV/TSV: the text encoding, utf-8, latin-1 or utf-16; detected when not given`)
	fs.IntVar(&o.SkipRows, "skip", 0, "CSV/TSV: lines to skip before the header (a title, an export note)")
	return o
}
