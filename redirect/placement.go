package redirect

import (
	"fmt"
	"strconv"
	"strings"
)

// HostSlots is one host of a launch and the process slots used on it.
type HostSlots struct {
	Host  string
	Slots int
}

// ParseHosts reads "nodeA:3,nodeB:3". Every host needs an explicit count.
func ParseHosts(s string) ([]HostSlots, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("--hosts is empty: expected host:slots[,host:slots...], e.g. nodeA:3,nodeB:3")
	}
	var hosts []HostSlots
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		name, count, ok := strings.Cut(strings.TrimSpace(item), ":")
		n, err := strconv.Atoi(count)
		if !ok || name == "" || err != nil || n < 1 {
			return nil, fmt.Errorf("--hosts entry %q is not valid: expected host:slots with slots >= 1, e.g. nodeA:3", item)
		}
		if seen[name] {
			return nil, fmt.Errorf("--hosts names %q twice", name)
		}
		seen[name] = true
		hosts = append(hosts, HostSlots{Host: name, Slots: n})
	}
	return hosts, nil
}

// Place fills hosts in order with users, putting ng ghosts on every host it
// uses; slots count ghosts too. It returns the processes to start on each
// used host. Hosts left over are not used.
func Place(users, ng int, hosts []HostSlots) ([]HostSlots, error) {
	if users < 1 {
		return nil, fmt.Errorf("-n must be at least 1, got %d", users)
	}
	if ng < 0 {
		return nil, fmt.Errorf("-g must not be negative, got %d", ng)
	}
	var plan []HostSlots
	left := users
	for _, h := range hosts {
		if left == 0 {
			break
		}
		room := h.Slots - ng
		if room < 1 {
			return nil, fmt.Errorf("host %s has %d slots, which %d ghost(s) fill with no room for a user; "+
				"give it at least %d slots", h.Host, h.Slots, ng, ng+1)
		}
		take := min(room, left)
		plan = append(plan, HostSlots{Host: h.Host, Slots: take + ng})
		left -= take
	}
	if left > 0 {
		total := 0
		for _, h := range hosts {
			total += h.Slots
		}
		return nil, fmt.Errorf("the hosts have %d slots, which cannot hold %d users plus %d ghost(s) per host "+
			"(%d users do not fit); add slots or hosts", total, users, ng, left)
	}
	return plan, nil
}

// FormatHosts writes a placement back in hydra's -hosts form.
func FormatHosts(hosts []HostSlots) string {
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = fmt.Sprintf("%s:%d", h.Host, h.Slots)
	}
	return strings.Join(parts, ",")
}

// TotalSlots adds up the processes of a placement.
func TotalSlots(hosts []HostSlots) int {
	n := 0
	for _, h := range hosts {
		n += h.Slots
	}
	return n
}
