package textsplit

import (
	"slices"
	"testing"
)

func TestSplitOutside(t *testing.T) {
	tests := []struct {
		s           string
		open, close rune
		want        []string
	}{
		{"", '[', ']', []string{""}},
		{"n1", '[', ']', []string{"n1"}},
		{"n[1-3,7],x2", '[', ']', []string{"n[1-3,7]", "x2"}},
		{"a[1,b[2,3]],c", '[', ']', []string{"a[1,b[2,3]]", "c"}},
		{"int a, void (*f)(int, int)", '(', ')', []string{"int a", " void (*f)(int, int)"}},
		{"a,,b", '(', ')', []string{"a", "", "b"}},
	}
	for _, tt := range tests {
		if got := SplitOutside(tt.s, tt.open, tt.close); !slices.Equal(got, tt.want) {
			t.Errorf("SplitOutside(%q, %q, %q) = %q, want %q", tt.s, tt.open, tt.close, got, tt.want)
		}
	}
}
