package main

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
)

// Environment is what a reader needs to judge a result: on a shared 2-core
// box the load before and after a run matters as much as the numbers.
type Environment struct {
	Host       string            `json:"host"`
	CPU        string            `json:"cpu"`
	NumCPU     int               `json:"num_cpu"`
	Kernel     string            `json:"kernel"`
	Go         string            `json:"go"`
	Git        string            `json:"git"`
	LoadBefore string            `json:"load_before"`
	LoadAfter  string            `json:"load_after"`
	Vars       map[string]string `json:"vars,omitempty"`
}

func captureEnvironment() Environment {
	host, _ := os.Hostname()
	return Environment{
		Host:       host,
		CPU:        cpuModel(),
		NumCPU:     runtime.NumCPU(),
		Kernel:     firstLine("/proc/sys/kernel/osrelease"),
		Go:         runtime.Version(),
		Git:        gitDescribe(),
		LoadBefore: loadAverage(),
		Vars:       relevantVars(os.Environ()),
	}
}

func loadAverage() string {
	f := strings.Fields(firstLine("/proc/loadavg"))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// gitDescribe names the tree measured; "-dirty" matters because the numbers
// belong to the working tree, not to the last commit.
func gitDescribe() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// relevantVars keeps the variables that change what is measured: Ghost's and
// Casper's settings, MPICH's control variables, and preloads.
func relevantVars(environ []string) map[string]string {
	prefixes := []string{"GHOST_", "CSP_", "MPIR_CVAR_", "MPICH_", "HYDRA_", "LD_PRELOAD"}
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				vars[k] = v
				break
			}
		}
	}
	if len(vars) == 0 {
		return nil
	}
	return vars
}

// sortedKeys returns m's keys in order, for stable output.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
