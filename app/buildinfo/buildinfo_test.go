package buildinfo

import "testing"

func TestVersion(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = ""
	if got := Version(); got != "dev" {
		// A test binary has no module version of its own.
		t.Errorf("Version() without a link-time version = %q, want dev", got)
	}
	version = "v1.2.3-4-gabcdef0"
	if got := Version(); got != "v1.2.3-4-gabcdef0" {
		t.Errorf("Version() = %q, want the link-time version", got)
	}
}
