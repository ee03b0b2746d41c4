package python

import "github.com/loupeapp/loupe/data/query"

var queryLimits = query.Limits{}
