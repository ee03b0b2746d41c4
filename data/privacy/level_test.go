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
	if Default(true) != Open || Default(false) != Masked {
		t.Errorf("Default(local) = %q, Default(hosted) = %q; want open, masked", Default(true), Default(false))
	}
}
