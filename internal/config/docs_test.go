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

// sectionHeading matches the heading of one variable's section.
var sectionHeading = regexp.MustCompile("(?m)^### `([A-Z0-9_]+)`$")

// The summary table of the reference is generated from Vars and
// LauncherVars (internal/refdoc, which tests that it is current). The rest
// of the page is prose, which this checks: every variable has a section of
// its own, in the order of the table, naming its aliases; no GHOST_* name
// appears that no variable has.
func checkReference(text string, vars []Var) []string {
	var problems []string
	known := map[string]bool{}
	var want []string
	for _, v := range vars {
		known[v.Name] = true
		for _, a := range v.Aliases {
			known[a] = true
		}
		want = append(want, v.Name)
	}
	headings := sectionHeading.FindAllStringSubmatchIndex(text, -1)
	var got []string
	section := map[string]string{}
	for i, h := range headings {
		name := text[h[2]:h[3]]
		end := len(text)
		if i+1 < len(headings) {
			end = headings[i+1][0]
		}
		if next := strings.Index(text[h[1]:end], "\n## "); next >= 0 {
			end = h[1] + next
		}
		got = append(got, name)
		section[name] = text[h[1]:end]
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		problems = append(problems, "sections are "+strings.Join(got, ", ")+"; want one per variable, in the table's order: "+strings.Join(want, ", "))
	}
	for _, v := range vars {
		for _, a := range v.Aliases {
			if s, ok := section[v.Name]; ok && !strings.Contains(s, "`"+a+"`") {
				problems = append(problems, "the section of "+v.Name+" does not name its alias `"+a+"`")
			}
		}
	}
	var unknown []string
	seen := map[string]bool{}
	// The example of the unknown-variable warning names a misspelt variable
	// on purpose.
	var prose []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.Contains(l, unknownVariable) {
			prose = append(prose, l)
		}
	}
	for _, n := range ghostName.FindAllString(strings.Join(prose, "\n"), -1) {
		if !known[n] && !seen[n] {
			seen[n] = true
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	for _, n := range unknown {
		problems = append(problems, "mentions "+n+", which is not a variable in config.Vars or config.LauncherVars")
	}
	return problems
}

func TestCheckReference(t *testing.T) {
	vars := []Var{{Name: "GHOST_NG", Aliases: []string{"CSP_NG"}}, {Name: "GHOST_WAIT"}}
	good := "## Variables\n\n### `GHOST_NG`\n\nAlias `CSP_NG`.\n\n### `GHOST_WAIT`\n\nText.\n\n## Other\n"
	tests := []struct {
		name string
		text string
		want []string // substrings, one per problem
	}{
		{name: "complete", text: good},
		{name: "section missing", text: "### `GHOST_NG`\n\n`CSP_NG`\n", want: []string{"sections are GHOST_NG;"}},
		{name: "sections out of order", text: "### `GHOST_WAIT`\n\n### `GHOST_NG`\n\n`CSP_NG`\n",
			want: []string{"sections are GHOST_WAIT, GHOST_NG;"}},
		{name: "alias outside its section", text: "### `GHOST_NG`\n\nNo alias.\n\n### `GHOST_WAIT`\n\n`CSP_NG`\n",
			want: []string{"does not name its alias `CSP_NG`"}},
		{name: "alias after the section ends", text: "### `GHOST_NG`\n\nNo alias.\n\n## Else\n\n`CSP_NG`\n\n### `GHOST_WAIT`\n",
			want: []string{"does not name its alias `CSP_NG`"}},
		{name: "unknown name", text: good + "GHOST_ASYNC=on and GHOST_WAIT_US\n",
			want: []string{"mentions GHOST_ASYNC,", "mentions GHOST_WAIT_US,"}},
		{name: "the unknown-variable warning", text: good + "ghost: warning: GHOST_WIAT is not a Ghost variable and is ignored\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkReference(tt.text, vars)
			if len(got) != len(tt.want) {
				t.Fatalf("problems = %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q lacks %q", got[i], w)
				}
			}
		})
	}
}

// TestReferenceMatchesCode keeps the prose of docs/reference.md in step
// with Vars and LauncherVars.
func TestReferenceMatchesCode(t *testing.T) {
	b, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("reading the variable reference: %v", err)
	}
	for _, p := range checkReference(string(b), append(append([]Var{}, Vars...), LauncherVars...)) {
		t.Errorf("%s: %s", referencePath, p)
	}
}
