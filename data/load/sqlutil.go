package load

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

type (
	ioReader = io.Reader
	ioWriter = io.Writer
)

// each runs query on c and calls fn for every row.
func each(ctx context.Context, c *duckdb.Conn, query string, fn func([]any)) error {
	rows, err := c.QueryContext(ctx, query, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	row := make([]any, len(dest))
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		for i, v := range dest {
			row[i] = v
		}
		fn(row)
	}
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

// noHive turns off DuckDB's reading of key=value folder names in a path
// as columns (hive partitioning), which it guesses from the path: a
// workspace under a folder such as "year=2024" gave every dataset a
// column "year". A file Loupe reads is always one file of its own.
const noHive = "hive_partitioning = false"
