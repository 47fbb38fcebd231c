package config

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// referencePath is docs/reference.md, relative to this package.
const referencePath = "../../docs/reference.md"

// ghostName matches every GHOST_* variable name mentioned in a text.
var ghostName = regexp.MustCompile(`\bGHOST_[A-Z0-9_]*[A-Z0-9]\b`)

// documentedNames returns every name, alias included, that the reference
// must document.
func documentedNames() []string {
	var names []string
	for _, vars := range [][]Var{Vars, LauncherVars} {
		for _, v := range vars {
			names = append(names, v.Name)
			names = append(names, v.Aliases...)
		}
	}
	return names
}

// checkReference returns what is wrong with a reference text: names that
// are not documented (each must appear in backticks, as `NAME`) and GHOST_*
// names that no variable has.
func checkReference(text string, names []string) (missing, unknown []string) {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
		if !strings.Contains(text, "`"+n+"`") {
			missing = append(missing, n)
		}
	}
	seen := map[string]bool{}
	for _, n := range ghostName.FindAllString(text, -1) {
		if !known[n] && !seen[n] {
			seen[n] = true
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	return missing, unknown
}

func TestCheckReference(t *testing.T) {
	names := []string{"GHOST_NG", "CSP_NG", "GHOST_WAIT"}
	tests := []struct {
		name    string
		text    string
		missing []string
		unknown []string
	}{
		{name: "complete", text: "`GHOST_NG` (alias `CSP_NG`) and `GHOST_WAIT`; unknown `GHOST_*` names warn."},
		{name: "alias missing", text: "`GHOST_NG`, `GHOST_WAIT`", missing: []string{"CSP_NG"}},
		{name: "not in backticks", text: "`GHOST_NG` `CSP_NG` GHOST_WAIT", missing: []string{"GHOST_WAIT"}},
		{name: "unknown name", text: "`GHOST_NG` `CSP_NG` `GHOST_WAIT` and GHOST_ASYNC, GHOST_ASYNC=on",
			unknown: []string{"GHOST_ASYNC"}},
		{name: "longer name is not a known one", text: "`GHOST_NG` `CSP_NG` `GHOST_WAIT` `GHOST_WAIT_US`",
			unknown: []string{"GHOST_WAIT_US"}},
		{name: "empty", text: "", missing: []string{"GHOST_NG", "CSP_NG", "GHOST_WAIT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			missing, unknown := checkReference(tt.text, names)
			if strings.Join(missing, ",") != strings.Join(tt.missing, ",") {
				t.Errorf("missing = %v, want %v", missing, tt.missing)
			}
			if strings.Join(unknown, ",") != strings.Join(tt.unknown, ",") {
				t.Errorf("unknown = %v, want %v", unknown, tt.unknown)
			}
		})
	}
}

// TestReferenceMatchesCode keeps docs/reference.md in step with Vars and
// LauncherVars.
func TestReferenceMatchesCode(t *testing.T) {
	b, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("reading the variable reference: %v", err)
	}
	missing, unknown := checkReference(string(b), documentedNames())
	for _, n := range missing {
		t.Errorf("%s does not document %s (write it in backticks, `%s`)", referencePath, n, n)
	}
	for _, n := range unknown {
		t.Errorf("%s mentions %s, which is not a variable in config.Vars or config.LauncherVars", referencePath, n)
	}
}
