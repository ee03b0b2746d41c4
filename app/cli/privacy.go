package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// EnvPrivacy names the environment variable that sets the privacy level
// of `loupe ask` and `loupe eval` when --privacy is not given.
const EnvPrivacy = config.EnvPrivacy

// levelFlag is the --privacy flag: a level, checked as it is parsed.
type levelFlag struct{ l *privacy.Level }

func (f levelFlag) String() string {
	if f.l == nil {
		return ""
	}
	return string(*f.l)
}

func (f levelFlag) Set(s string) error {
	l, err := privacy.Parse(s)
	if err != nil {
		return err
	}
	*f.l = l
	return nil
}

// openModel opens the model server cfg names for the questions of command
// name (config.OpenModel): the privacy level in force is --privacy (o's),
// else $LOUPE_PRIVACY, else the server's default, said on stderr for a
// server on another machine, and set in o; every request to another
// machine is kept in st's outbox (with its answer, or for no conversation).
// On failure it says why and returns the exit code: ExitUsage for a level
// that cannot be settled.
func openModel(e env, name string, st *store.Store, cfg *provider.Config, o *assemble.Options) (*config.Model, int) {
	m, err := config.OpenModel(config.Spec{Config: *cfg, Store: func() (*store.Store, error) { return st, nil }, Getenv: os.Getenv,
		Levels: &config.Flagged{Level: o.Privacy, Getenv: os.Getenv, Notice: e.stderr}})
	var le *config.LevelError
	if errors.As(err, &le) {
		fmt.Fprintf(e.stderr, "loupe %s: %v\n", name, le.Err)
		return nil, ExitUsage
	}
	if err != nil {
		return nil, fail(e, err)
	}
	o.Privacy = m.Level
	return m, ExitOK
}
