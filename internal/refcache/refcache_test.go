package refcache

import (
	"errors"
	"reflect"
	"testing"
)

func TestCache(t *testing.T) {
	type step struct {
		op   string // "acquire", "fail" (an acquire whose create fails), "release"
		key  string
		want string // the event: "create k#n", "hit k#n", "free k#n", "keep k#n", "error", "unknown"
	}
	tests := []struct {
		name    string
		steps   []step
		wantLen int
	}{
		{"one window", []step{
			{"acquire", "a", "create a#1"},
			{"release", "a", "free a#1"},
		}, 0},
		{"windows over one set share", []step{
			{"acquire", "a", "create a#1"},
			{"acquire", "a", "hit a#1"},
			{"release", "a", "keep a#1"},
			{"acquire", "a", "hit a#1"},
			{"release", "a", "keep a#1"},
			{"release", "a", "free a#1"},
			{"acquire", "a", "create a#2"}, // after the last free, a new one
		}, 1},
		{"sets are apart, freed in any order", []step{
			{"acquire", "a", "create a#1"},
			{"acquire", "b", "create b#2"},
			{"release", "a", "free a#1"},
			{"acquire", "b", "hit b#2"},
			{"release", "b", "keep b#2"},
			{"release", "b", "free b#2"},
		}, 0},
		{"a failed create leaves nothing", []step{
			{"fail", "a", "error"},
			{"release", "a", "unknown"},
			{"acquire", "a", "create a#1"},
		}, 1},
		{"release of nothing", []step{
			{"release", "z", "unknown"},
		}, 0},
	}
	boom := errors.New("no context id")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[string, string]()
			made := 0
			var got, want []string
			for _, s := range tt.steps {
				want = append(want, s.want)
				switch s.op {
				case "acquire", "fail":
					created := false
					v, err := c.Acquire(s.key, func() (string, error) {
						if s.op == "fail" {
							return "", boom
						}
						made++
						created = true
						return s.key + "#" + string(rune('0'+made)), nil
					})
					switch {
					case err != nil:
						got = append(got, "error")
					case created:
						got = append(got, "create "+v)
					default:
						got = append(got, "hit "+v)
					}
				case "release":
					v, last, ok := c.Release(s.key)
					switch {
					case !ok:
						got = append(got, "unknown")
					case last:
						got = append(got, "free "+v)
					default:
						got = append(got, "keep "+v)
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("events\n got %q\nwant %q", got, want)
			}
			if c.Len() != tt.wantLen {
				t.Errorf("Len = %d, want %d", c.Len(), tt.wantLen)
			}
		})
	}
}
