package refdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/redirect"
)

const referencePath = "../../docs/reference.md"

// The committed reference must hold the tables the generator writes: run
// `make generate` after changing config.Vars or redirect.HintDocs.
func TestReferenceUpToDate(t *testing.T) {
	got, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	// Regenerate a copy, as `go generate` would, and compare.
	tmp := filepath.Join(t.TempDir(), "reference.md")
	if err := os.WriteFile(tmp, got, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RenderFile(tmp); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the generated tables of %s are stale: run `make generate` and commit the result", referencePath)
	}
}

func TestRender(t *testing.T) {
	marked := func(name, body string) string { return Begin(name) + "\n" + body + End(name) }
	page := "# Ref\n\n" + marked("variables", "| old |\n") + "\n\nprose\n\n" + marked("info-keys", "") + "\n"
	out, err := Render(page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "| old |") || !strings.Contains(out, "\n\nprose\n\n") {
		t.Errorf("Render did not replace only the tables:\n%s", out)
	}
	for _, v := range append(append([]config.Var{}, config.Vars...), config.LauncherVars...) {
		if !strings.Contains(out, "| [`"+v.Name+"`](#"+strings.ToLower(v.Name)+") |") {
			t.Errorf("no row for %s", v.Name)
		}
	}
	for _, h := range redirect.HintDocs {
		if !strings.Contains(out, "| `"+h.Key+"` |") {
			t.Errorf("no row for info key %s", h.Key)
		}
	}
	again, err := Render(out)
	if err != nil || again != out {
		t.Errorf("Render is not idempotent (err %v)", err)
	}
	for _, bad := range []string{
		marked("variables", ""),                             // a table not marked
		page + marked("info-keys", ""),                      // a table marked twice
		Begin("variables") + "\n" + marked("info-keys", ""), // a table not ended
	} {
		if _, err := Render(bad); err == nil {
			t.Errorf("Render accepted %q", bad)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{"auto": "`auto`", "127.0.0.1:9464": "`127.0.0.1:9464`",
		"unset (no trace)": "unset (no trace)", "": "", "a|b c": `a\|b c`} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}
