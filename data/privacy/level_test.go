package privacy

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Level
		bad  bool
	}{
		{"open", Open, false}, {" Masked ", Masked, false}, {"SCHEMA", Schema, false},
		{"", "", true}, {"private", "", true},
	} {
		got, err := Parse(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrUnknownLevel) {
				t.Errorf("Parse(%q) err %v, want ErrUnknownLevel", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestDefault(t *testing.T) {
	for url, want := range map[string]Level{
		"http://127.0.0.1:11434":           Open,
		"http://localhost:8080/v1":         Open,
		"http://[::1]:11434":               Open,
		"http://ollama.localhost":          Open,
		"https://api.openai.com/v1":        Masked,
		"http://192.168.1.5:11434":         Masked,
		"http://127.0.0.1.evil.example/v1": Masked,
		"":                                 Masked,
		"not a url":                        Masked,
	} {
		if got := Default(url); got != want {
			t.Errorf("Default(%q) = %q, want %q", url, got, want)
		}
	}
}
