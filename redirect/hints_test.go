package redirect

import (
	"strings"
	"testing"
)

// Every key ParseHints reads is documented, once and in order, and nothing
// else is.
func TestHintDocsCoverHintKeys(t *testing.T) {
	var keys []string
	for _, d := range HintDocs {
		keys = append(keys, d.Key)
	}
	if strings.Join(keys, ",") != strings.Join(HintKeys, ",") {
		t.Errorf("HintDocs document %v; ParseHints reads %v", keys, HintKeys)
	}
	for _, d := range HintDocs {
		h, errs := ParseHints(func(k string) (string, bool) { return "?", k == d.Key })
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), d.Key) {
			t.Errorf("ParseHints does not read %s: %+v %v", d.Key, h, errs)
		}
	}
}
