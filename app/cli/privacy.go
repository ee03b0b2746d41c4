package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/privacy"
)

// EnvPrivacy names the environment variable that sets the privacy level
// of `loupe ask` and `loupe eval` when --privacy is not given.
const EnvPrivacy = "LOUPE_PRIVACY"

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

// resolveLevel settles the level in force when --privacy was not given:
// $LOUPE_PRIVACY, else privacy.Default of the model server. A hosted
// server at its default level gets one line on w saying so and how to
// change it.
func resolveLevel(w io.Writer, cfg provider.Config, l *privacy.Level) error {
	if *l != "" {
		return nil
	}
	if v := os.Getenv(EnvPrivacy); v != "" {
		p, err := privacy.Parse(v)
		if err != nil {
			return fmt.Errorf("%s: %w", EnvPrivacy, err)
		}
		*l = p
		return nil
	}
	server := provider.ServerURL(cfg)
	*l = privacy.Default(provider.IsLocal(server))
	if !provider.IsLocal(server) {
		fmt.Fprintf(w, "Privacy: %s is not on this machine, so it gets level %s: it sees %s. Choose with --privacy open|masked|schema or %s.\n",
			server, *l, (*l).Describe(), EnvPrivacy)
	}
	return nil
}
