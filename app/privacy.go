package app

import (
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
)

// CodePrivacy is the error of a question to a model server on another
// machine for which the user has not chosen a privacy level yet: the
// window asks them (GetPrivacy, SetPrivacy) and asks the question again.
const CodePrivacy = "privacy"

// PrivacyState is the privacy level in force for the model server the
// settings name, and what each level means.
type PrivacyState struct {
	Level privacy.Level `json:"level"`
	// Chosen says the user chose the level for this server; otherwise it
	// is privacy.Default of the server.
	Chosen   bool   `json:"chosen"`
	Describe string `json:"describe"`
	// Host is the model server's host; Local says it is on this machine.
	Host   string         `json:"host"`
	Local  bool           `json:"local"`
	Levels []PrivacyLevel `json:"levels"`
}

// PrivacyLevel is one level and what a model at it is sent.
type PrivacyLevel struct {
	Level    privacy.Level `json:"level"`
	Describe string        `json:"describe"`
}

// GetPrivacy returns the privacy level in force for the model server the
// settings name (config.Choices).
func (a *App) GetPrivacy() (*PrivacyState, error) {
	s, err := a.settings.Get()
	if err != nil {
		return nil, configError(err)
	}
	c, err := a.choices.State(a.settings.ProviderConfig(s))
	if err != nil {
		return nil, configError(err)
	}
	st := PrivacyState{Level: c.Level, Chosen: c.Chosen, Describe: c.Level.Describe(), Host: c.Host, Local: c.Local}
	for _, l := range privacy.Levels {
		st.Levels = append(st.Levels, PrivacyLevel{Level: l, Describe: l.Describe()})
	}
	return &st, nil
}

// SetPrivacy chooses the privacy level (open, masked or schema) for the
// model server the settings name; other servers keep theirs.
func (a *App) SetPrivacy(level string) error {
	l, err := config.ParseLevel(level)
	if err != nil {
		return configError(err)
	}
	s, err := a.settings.Get()
	if err != nil {
		return configError(err)
	}
	return configError(a.choices.Choose(a.settings.ProviderConfig(s), l))
}
