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

// Default is the level a model server gets until the user chooses: Open
// when it is on this machine (local; provider.IsLocal decides), Masked
// anywhere else.
func Default(local bool) Level {
	if local {
		return Open
	}
	return Masked
}
