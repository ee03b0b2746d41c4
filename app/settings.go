package app

import (
	"errors"

	"github.com/loupeapp/loupe/app/config"
)

// EnvConfigDir names the environment variable that picks the config folder.
const EnvConfigDir = config.EnvDir

// Settings are the user's choices (config.Settings): HasAPIKey says
// whether the keychain holds an API key for the OpenAI base URL's host;
// the key itself never travels to the frontend, and is sent to no host
// but the one it was entered for (APIKeyFor).
type Settings config.Settings

// SettingsUpdate is what SaveSettings takes: the settings, and the API key
// when it changes (absent: keep the stored key, still bound to its host;
// empty: forget it). HasAPIKey, APIKeyFor and APIKeyWarning are ignored.
type SettingsUpdate struct {
	Settings
	APIKey *string `json:"apiKey,omitempty"`
}

// DefaultConfigDir is where settings live unless Options.ConfigDir says
// otherwise (config.Dir).
func DefaultConfigDir(getenv func(string) string) (string, error) { return config.Dir(getenv) }

func (a *App) configDir() (string, error) {
	if a.opts.ConfigDir != "" {
		return a.opts.ConfigDir, nil
	}
	return config.Dir(a.opts.Getenv)
}

// configError gives config's errors their codes.
func configError(err error) error {
	if err == nil {
		return nil
	}
	var ce *config.Error
	if !errors.As(err, &ce) {
		return wrap(err)
	}
	code := map[config.Kind]string{config.KindInvalid: CodeInvalid, config.KindFile: CodeFile, config.KindKeychain: CodeKeychain,
		config.KindNotFound: CodeNotFound, config.KindUnreachable: CodeModelUnreachable, config.KindModel: CodeModel,
		config.KindUnchosen: CodePrivacy}[ce.Kind]
	return &Error{Code: code, Message: ce.Message, Hint: ce.Hint, Err: ce}
}

// GetSettings returns the settings.
func (a *App) GetSettings() (*Settings, error) {
	s, err := a.settings.Get()
	if err != nil {
		return nil, configError(err)
	}
	out := Settings(s)
	return &out, nil
}

// SaveSettings saves the settings; an API key, when given, goes to the OS
// keychain and never into the settings file. The status is checked again
// (status:changed).
func (a *App) SaveSettings(u SettingsUpdate) error {
	if err := a.settings.Save(config.Update{Settings: config.Settings(u.Settings), APIKey: u.APIKey}); err != nil {
		return configError(err)
	}
	a.background(a.refreshStatus)
	return nil
}
