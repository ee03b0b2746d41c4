package remotetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// Containment is a connector's test of issue 16's quoting bypass against
// its real server, connected as an administrator who could read server
// files, and of the warning about such a role.
type Containment struct {
	Admin         remote.Profile // a role that may read server files
	AdminPassword string
	ReadOnly      remote.Profile // the read-only role
	ReadOnlyPass  string
	// Attacks are statements that reach outside the database; each is
	// refused, with a reason naming the function of the same index in
	// Named.
	Attacks []string
	Named   []string
	// Leaks are strings of the files the attacks read that no result or
	// error may hold ("root:" of /etc/passwd).
	Leaks []string
	// Risk is a word the admin's role warning must hold (FILE, superuser).
	Risk string
}

// RunContainment runs c's attacks through the connector as the
// administrator, then tests both roles for the privilege warning.
func RunContainment(t *testing.T, c Containment) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	src, err := remote.Open(ctx, c.Admin, c.AdminPassword)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for i, text := range c.Attacks {
		res, err := src.Query(ctx, text, query.Limits{})
		var re *guard.RefusedError
		if !errors.As(err, &re) {
			t.Errorf("%s ran as %s: %v, %v", text, c.Admin.User, res, err)
		} else if !strings.Contains(err.Error(), c.Named[i]) || !strings.Contains(err.Error(), "does not allow") {
			t.Errorf("%s: the refusal %q does not name %s or say it is not allowed", text, err, c.Named[i])
		}
		for _, leak := range c.Leaks {
			if strings.Contains(fmt.Sprint(res, err), leak) {
				t.Errorf("%s: the answer holds %q", text, leak)
			}
		}
	}

	tested, err := remote.Test(ctx, c.Admin, c.AdminPassword)
	if err != nil {
		t.Fatal(err)
	}
	w := tested.Role
	if w == nil {
		t.Fatalf("no role warning for %s", c.Admin.User)
	}
	if !strings.Contains(strings.Join(w.Risks, "\n"), c.Risk) || !strings.Contains(w.SQL, "loupe_ro") || w.Role == "" {
		t.Errorf("the warning for %s: %+v", c.Admin.User, w)
	}
	t.Logf("%s: %s %q", c.Admin.User, w.Message, w.Risks)
	tested, err = remote.Test(ctx, c.ReadOnly, c.ReadOnlyPass)
	if err != nil {
		t.Fatal(err)
	}
	if tested.Role != nil {
		t.Errorf("the read-only role %s gets a warning: %+v", c.ReadOnly.User, tested.Role)
	}
}
