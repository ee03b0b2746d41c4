package remote

import (
	"context"
	"time"
)

// Tested is what a successful connection test found.
type Tested struct {
	Dialect Dialect
	Schema  *Schema
	Elapsed time.Duration
	// Role is set when the connection's role may do more than read.
	Role *RoleWarning
}

// Test connects to the source p describes, checks that it answers, reads
// its schema and audits its role's privileges (AuditRole). Errors are
// those of Open, Ping and Discover: a *ConnError says what to do.
func Test(ctx context.Context, p Profile, password string) (*Tested, error) {
	start := time.Now()
	src, err := Open(ctx, p, password)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if err := src.Ping(ctx); err != nil {
		return nil, err
	}
	sch, err := src.Discover(ctx)
	if err != nil {
		return nil, err
	}
	role := AuditRole(ctx, src, p)
	return &Tested{Dialect: src.Dialect(), Schema: sch, Elapsed: time.Since(start), Role: role}, nil
}
