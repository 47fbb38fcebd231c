package redirect

import (
	"fmt"
	"strings"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/rdma"
)

// Bypass is one process's hardware-bypass decision (GHOST_HW_BYPASS): may
// contiguous PUT/GET of predefined datatypes skip the ghosts and go
// straight to the target, whose NIC completes them without its CPU? The
// job applies it only if every process decided yes (shim/hw.go).
type Bypass struct {
	Mode   config.HWBypass `json:"mode"`
	Bypass bool            `json:"bypass"`
	Reason string          `json:"reason"`
	// Offload lists the devices whose hardware does RDMA read and write on
	// an active port.
	Offload []string `json:"offload_devices"`
	// Atomics says what the NIC atomics are, and that accumulates stay on
	// the ghosts whatever they are; empty without an offloading device.
	Atomics string `json:"atomics,omitempty"`
}

// RMAOp is a class of RMA operation, as the bypass policy sees it.
type RMAOp int

const (
	OpPutGet     RMAOp = iota // Put, Get, Rput, Rget
	OpAccumulate              // Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and request forms
)

// Allows says whether an operation of class op bypasses the ghosts.
// contiguousPredefined: its origin and target datatypes are both
// predefined contiguous types. This is the rule c/rma.c applies per
// operation (ghost_hw_bypass); accumulates never bypass, because every
// accumulate to one target must take one path for MPI's atomicity and
// ordering, and MPI's reductions go beyond what NIC atomics do.
func (b Bypass) Allows(op RMAOp, contiguousPredefined bool) bool {
	return b.Bypass && op == OpPutGet && contiguousPredefined
}

// DecideBypass applies GHOST_HW_BYPASS to the devices discovery found.
// Under auto, PUT/GET bypass when some device has an active port whose
// transport does RDMA read and write in hardware: InfiniBand and RoCE
// (the InfiniBand transport, on either link layer) and iWARP. usNIC has no
// RDMA read or write, and a device that could not be queried proves
// nothing.
func DecideBypass(mode config.HWBypass, caps rdma.Caps) Bypass {
	b := Bypass{Mode: mode, Offload: []string{}}
	var why []string // per device, why it does not offload
	atomics := map[rdma.AtomicCap][]string{}
	for _, d := range caps.Devices {
		ok, reason := offloads(d)
		if !ok {
			why = append(why, d.Name+": "+reason)
			continue
		}
		b.Offload = append(b.Offload, fmt.Sprintf("%s (%s)", d.Name, d.Kind()))
		atomics[d.AtomicCap] = append(atomics[d.AtomicCap], d.Name)
	}
	if len(b.Offload) > 0 {
		var parts []string
		for _, c := range []rdma.AtomicCap{rdma.AtomicGlob, rdma.AtomicHCA, rdma.AtomicNone} {
			if names := atomics[c]; len(names) > 0 {
				parts = append(parts, fmt.Sprintf("%s on %s", c, strings.Join(names, ", ")))
			}
		}
		b.Atomics = strings.Join(parts, "; ") + "; accumulate-type operations stay on the ghosts regardless"
	}

	found := noDeviceReason(caps, why)
	if len(b.Offload) > 0 {
		found = "RDMA read/write offloaded by " + strings.Join(b.Offload, ", ")
	}
	switch mode {
	case config.HWBypassOff:
		b.Reason = "GHOST_HW_BYPASS=off (" + found + ")"
	case config.HWBypassOn:
		b.Bypass = true
		b.Reason = "GHOST_HW_BYPASS=on, forced (" + found + ")"
	default:
		b.Bypass = len(b.Offload) > 0
		b.Reason = found
	}
	return b
}

// offloads says whether d does RDMA read and write in hardware on an active
// port, or why not.
func offloads(d rdma.Device) (bool, string) {
	if d.Problem != "" {
		return false, d.Problem
	}
	switch d.Transport {
	case rdma.TransportIB, rdma.TransportIWARP:
	default:
		return false, fmt.Sprintf("transport %s has no RDMA read/write", d.Transport)
	}
	if len(d.Ports) == 0 {
		return false, "no port"
	}
	for _, p := range d.Ports {
		if p.State == rdma.PortActive || p.State == rdma.PortActiveDefer {
			return true, ""
		}
	}
	states := make([]string, len(d.Ports))
	for i, p := range d.Ports {
		states[i] = fmt.Sprintf("port %d %s", p.Number, p.State)
	}
	return false, "no active port (" + strings.Join(states, ", ") + ")"
}

// noDeviceReason words the absence of an offloading device.
func noDeviceReason(caps rdma.Caps, why []string) string {
	switch {
	case caps.Library == "":
		return "no RDMA device: " + firstNonEmpty(caps.Note, "libibverbs is not loaded (rdma-core not installed)")
	case len(caps.Devices) == 0 && caps.Note != "":
		return "no RDMA device (" + caps.Note + ")"
	case len(caps.Devices) == 0:
		return "no RDMA device"
	}
	return "no RDMA device offloads read/write: " + strings.Join(why, "; ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
