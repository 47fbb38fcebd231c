package redirect

import (
	"strings"
	"testing"
)

// FuzzHintValues complements FuzzParseHints (window_test.go), which checks
// the epochs: every one of the three info values is fuzzed, and each value
// must either set its field or give exactly one error that names its key
// and leaves the field at its default.
func FuzzHintValues(f *testing.F) {
	for _, s := range [][3]string{
		{"lock", "true", "on"},
		{"fence,pscw", "false", "off"},
		{" LockAll ", " TRUE ", " Off "},
		{"", "", ""},
		{"lock,,fence", "yes", "auto"},
		{"\x00", "tru\x00e", "o\xffn"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, epochs, noLoadStore, async string) {
		info := map[string]string{KeyEpochsUsed: epochs, KeyNoLocalLoadStore: noLoadStore, KeyAsyncConfig: async}
		h, errs := ParseHints(func(k string) (string, bool) { v, ok := info[k]; return v, ok })
		errFor := map[string]int{}
		for _, e := range errs {
			matched := 0
			for key := range info {
				if strings.HasPrefix(e.Error(), "info "+key+"=") {
					errFor[key]++
					matched++
				}
			}
			if matched != 1 {
				t.Fatalf("error %q names no single key", e)
			}
		}
		for key, n := range errFor {
			if n > 1 {
				t.Fatalf("%d errors for %s", n, key)
			}
		}

		wantEpochs, err := ParseEpochs(epochs)
		if (err != nil) != (errFor[KeyEpochsUsed] == 1) {
			t.Fatalf("epochs_used=%q: ParseEpochs error %v, hint errors %v", epochs, err, errs)
		}
		if err != nil {
			wantEpochs = AllEpochs
		}
		if h.Epochs != wantEpochs {
			t.Fatalf("epochs_used=%q gave %v, want %v", epochs, h.Epochs, wantEpochs)
		}

		switch v := strings.ToLower(strings.TrimSpace(noLoadStore)); {
		case v == "true" && (!h.NoLocalLoadStore || errFor[KeyNoLocalLoadStore] != 0),
			v == "false" && (h.NoLocalLoadStore || errFor[KeyNoLocalLoadStore] != 0),
			v != "true" && v != "false" && (h.NoLocalLoadStore || errFor[KeyNoLocalLoadStore] != 1):
			t.Fatalf("no_local_load_store=%q gave %v with errors %v", noLoadStore, h.NoLocalLoadStore, errs)
		}

		want, bad := map[string]Async{"on": AsyncOn, "off": AsyncOff}[strings.ToLower(strings.TrimSpace(async))], 0
		if want == AsyncDefault {
			bad = 1
		}
		if h.Async != want || errFor[KeyAsyncConfig] != bad {
			t.Fatalf("async_config=%q gave %v with errors %v", async, h.Async, errs)
		}
	})
}
