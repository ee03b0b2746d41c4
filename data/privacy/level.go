// Package privacy owns what of the user's data a model may see: the privacy
// levels, and (as they land) the private-column marks and the placeholders
// that stand for private values.
//
// It sits in the data layer so that tools, the agent and the façade can all
// import it; it imports nothing of Loupe's.
package privacy

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Level is how much of the user's data a provider is sent.
type Level string

const (
	// Open sends everything the tools produce: samples, frequent values,
	// profiles, result rows. The default for a provider on loopback.
	Open Level = "open"
	// Masked is Open, but values of columns marked private reach the model
	// only as stable placeholders (<email_3>). The default for a hosted
	// provider.
	Masked Level = "masked"
	// Schema sends no cell value at all: names, types, notes, row counts and
	// each result's shape only.
	Schema Level = "schema"
)

// Levels lists every level, from most to least shared.
var Levels = []Level{Open, Masked, Schema}

// ErrUnknownLevel is returned by Parse for a name that is not a level.
var ErrUnknownLevel = errors.New("unknown privacy level")

// Parse returns the level s names (case and surrounding space ignored). The
// error wraps ErrUnknownLevel and says which names are accepted.
func Parse(s string) (Level, error) {
	l := Level(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Levels {
		if l == k {
			return l, nil
		}
	}
	return "", fmt.Errorf("%w %q: use open, masked or schema", ErrUnknownLevel, s)
}

// Describe says in one line what a provider at level l is sent.
func (l Level) Describe() string {
	switch l {
	case Open:
		return "everything the analysis reads: samples, frequent values, profiles and result rows"
	case Masked:
		return "as open, but values of private columns are replaced by placeholders such as <email_3>"
	case Schema:
		return "names, types, notes, row counts and the shape of each result; never a cell value"
	}
	return "unknown level"
}

// IsLocal reports whether baseURL names a server on this machine: a loopback
// IP, localhost or a name under .localhost. An empty baseURL is local for
// Ollama (its default is 127.0.0.1:11434) and not for OpenAI; callers pass
// the resolved URL.
func IsLocal(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.Trim(u.Hostname(), "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Default is the level a provider at baseURL gets until the user chooses:
// Open on this machine, Masked anywhere else.
func Default(baseURL string) Level {
	if IsLocal(baseURL) {
		return Open
	}
	return Masked
}
