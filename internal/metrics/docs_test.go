package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// exportedNames are the metric names the collector describes.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	ch := make(chan *prometheus.Desc, 64)
	NewCollector(0, fixedSource{}, BuildInfo{}).Describe(ch)
	close(ch)
	names := map[string]bool{}
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		m := re.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		names[m[1]] = true
	}
	return names
}

var metricName = regexp.MustCompile(`\bghost_[a-z_]+\b`)

// docs/metrics.md lists every metric, and no other.
func TestMetricsDocumented(t *testing.T) {
	text, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	names := exportedNames(t)
	for n := range names {
		if !strings.Contains(string(text), "| `"+n+"` |") {
			t.Errorf("docs/metrics.md has no table row for %s", n)
		}
	}
	for _, loc := range metricName.FindAllStringIndex(string(text), -1) {
		n := string(text[loc[0]:loc[1]])
		anchor := loc[0] > 0 && text[loc[0]-1] == '#' // a link into reference.md
		if !names[n] && !anchor && !strings.HasPrefix(n, "ghost_node") && !strings.HasPrefix(n, "ghost_count") {
			t.Errorf("docs/metrics.md names %s, which is not exported", n)
		}
	}
}

// docs/grafana/ghost.json is valid JSON, a dashboard, and queries only
// metrics that exist.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("../../docs/grafana/ghost.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if dash.Title == "" || dash.UID == "" || len(dash.Panels) == 0 {
		t.Fatalf("not a dashboard: title %q uid %q, %d panels", dash.Title, dash.UID, len(dash.Panels))
	}
	names := exportedNames(t)
	used := map[string]bool{}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			for _, n := range metricName.FindAllString(q.Expr, -1) {
				used[n] = true
				if !names[n] {
					t.Errorf("panel %q queries %s, which is not exported", p.Title, n)
				}
			}
		}
	}
	var unused []string
	for n := range names {
		if !used[n] {
			unused = append(unused, n)
		}
	}
	sort.Strings(unused)
	// Counters the dashboard shows through rates of others are fine, but
	// the operations, ghosts and adaptation must be on it.
	for _, n := range []string{"ghost_rma_operations_total", "ghost_busy_seconds_total", "ghost_adaptation_state", "ghost_adaptation_transitions_total"} {
		if !used[n] {
			t.Errorf("the dashboard does not show %s (unused: %v)", n, unused)
		}
	}
}
