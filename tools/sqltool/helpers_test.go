package sqltool_test

import (
	"time"

	"github.com/loupeapp/loupe/data/query"
)

func queryLimits() query.Limits { return query.Limits{Timeout: 10 * time.Second} }
