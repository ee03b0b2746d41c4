package provider

import "testing"

func TestIsLocal(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:11434":           true,
		"http://localhost:8080/v1":         true,
		"http://[::1]:11434":               true,
		"http://ollama.localhost":          true,
		"https://api.openai.com/v1":        false,
		"http://192.168.1.5:11434":         false,
		"http://127.0.0.1.evil.example/v1": false,
		"":                                 false,
		"not a url":                        false,
	} {
		if got := IsLocal(url); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", url, got, want)
		}
	}
}
