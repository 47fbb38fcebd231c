package redirect

import (
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/rdma"
)

// Fake device descriptions, as internal/rdma/verbs would return them.
var (
	noLibrary = rdma.Caps{Note: "libibverbs.so.1 not loaded: libibverbs.so.1: cannot open shared object file"}
	enosys    = rdma.Caps{Library: "libibverbs.so.1", Devices: []rdma.Device{}, Note: "ibv_get_device_list: function not implemented"}
	emptyList = rdma.Caps{Library: "libibverbs.so.1", Devices: []rdma.Device{}}
)

func device(name string, tr rdma.Transport, atomic rdma.AtomicCap, ports ...rdma.Port) rdma.Device {
	return rdma.Device{Name: name, Transport: tr, AtomicCap: atomic, Ports: ports}
}

func caps(devs ...rdma.Device) rdma.Caps {
	return rdma.Caps{Library: "libibverbs.so.1", Devices: devs}
}

var (
	ibUp     = rdma.Port{Number: 1, State: rdma.PortActive, LinkLayer: rdma.LinkInfiniBand}
	ibDown   = rdma.Port{Number: 1, State: rdma.PortDown, LinkLayer: rdma.LinkInfiniBand}
	ibInit   = rdma.Port{Number: 2, State: rdma.PortInit, LinkLayer: rdma.LinkInfiniBand}
	ethUp    = rdma.Port{Number: 1, State: rdma.PortActive, LinkLayer: rdma.LinkEthernet}
	oldIBUp  = rdma.Port{Number: 1, State: rdma.PortActive, LinkLayer: rdma.LinkUnspecified}
	deferred = rdma.Port{Number: 1, State: rdma.PortActiveDefer, LinkLayer: rdma.LinkInfiniBand}
)

func TestDecideBypass(t *testing.T) {
	auto, on, off := config.HWBypassAuto, config.HWBypassOn, config.HWBypassOff
	tests := []struct {
		name    string
		mode    config.HWBypass
		caps    rdma.Caps
		bypass  bool
		reason  string // substring of Reason
		offload []string
		atomics string // substring of Atomics; "" wants it empty
	}{
		{"no library, auto", auto, noLibrary, false, "no RDMA device: libibverbs.so.1 not loaded", nil, ""},
		{"no library, on", on, noLibrary, true, "GHOST_HW_BYPASS=on, forced (no RDMA device", nil, ""},
		{"no library, off", off, noLibrary, false, "GHOST_HW_BYPASS=off (no RDMA device", nil, ""},
		{"no library, no note", auto, rdma.Caps{}, false, "rdma-core not installed", nil, ""},
		{"device list NULL with ENOSYS", auto, enosys, false, "no RDMA device (ibv_get_device_list: function not implemented)", nil, ""},
		{"empty device list", auto, emptyList, false, "no RDMA device", nil, ""},
		{"empty device list, on", on, emptyList, true, "forced (no RDMA device)", nil, ""},
		{"InfiniBand up", auto, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, ibUp)), true,
			"offloaded by mlx5_0 (InfiniBand)", []string{"mlx5_0 (InfiniBand)"}, "IBV_ATOMIC_HCA on mlx5_0"},
		{"InfiniBand up, off", off, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, ibUp)), false,
			"GHOST_HW_BYPASS=off (RDMA read/write offloaded by mlx5_0", []string{"mlx5_0 (InfiniBand)"}, "IBV_ATOMIC_HCA"},
		{"InfiniBand, old kernel without link layer", auto, caps(device("mthca0", rdma.TransportIB, rdma.AtomicNone, oldIBUp)), true,
			"mthca0 (InfiniBand)", []string{"mthca0 (InfiniBand)"}, "IBV_ATOMIC_NONE on mthca0"},
		{"InfiniBand active-defer", auto, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, deferred)), true,
			"mlx5_0", []string{"mlx5_0 (InfiniBand)"}, "IBV_ATOMIC_HCA"},
		{"device down", auto, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, ibDown, ibInit)), false,
			"mlx5_0: no active port (port 1 down, port 2 init)", nil, ""},
		{"device down, on", on, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, ibDown)), true,
			"forced (no RDMA device offloads read/write: mlx5_0: no active port", nil, ""},
		{"device without ports", auto, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA)), false, "mlx5_0: no port", nil, ""},
		{"RoCE up", auto, caps(device("rocep1s0", rdma.TransportIB, rdma.AtomicGlob, ethUp)), true,
			"rocep1s0 (RoCE)", []string{"rocep1s0 (RoCE)"}, "IBV_ATOMIC_GLOB on rocep1s0; accumulate-type operations stay on the ghosts"},
		{"iWARP up", auto, caps(device("iwp1s0", rdma.TransportIWARP, rdma.AtomicNone, ethUp)), true,
			"iwp1s0 (iWARP)", []string{"iwp1s0 (iWARP)"}, "IBV_ATOMIC_NONE on iwp1s0"},
		{"usNIC has no RDMA read/write", auto, caps(device("usnic_0", rdma.TransportUSNIC, rdma.AtomicNone, ethUp)), false,
			"usnic_0: transport usnic has no RDMA read/write", nil, ""},
		{"unknown transport", auto, caps(device("x0", rdma.TransportUnknown, rdma.AtomicNone, ethUp)), false,
			"x0: transport unknown has no RDMA read/write", nil, ""},
		{"device that could not be opened", auto, caps(rdma.Device{Name: "mlx5_1", Transport: rdma.TransportIB, Problem: "ibv_open_device failed"}), false,
			"mlx5_1: ibv_open_device failed", nil, ""},
		{"one down, one up", auto, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, ibDown),
			device("mlx5_1", rdma.TransportIB, rdma.AtomicGlob, ibUp)), true,
			"offloaded by mlx5_1 (InfiniBand)", []string{"mlx5_1 (InfiniBand)"}, "IBV_ATOMIC_GLOB on mlx5_1"},
		{"two up, different atomics", auto, caps(device("mlx5_0", rdma.TransportIB, rdma.AtomicHCA, ibUp),
			device("rocep2", rdma.TransportIB, rdma.AtomicGlob, ethUp)), true,
			"mlx5_0 (InfiniBand), rocep2 (RoCE)", []string{"mlx5_0 (InfiniBand)", "rocep2 (RoCE)"},
			"IBV_ATOMIC_GLOB on rocep2; IBV_ATOMIC_HCA on mlx5_0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := DecideBypass(tt.mode, tt.caps)
			if b.Bypass != tt.bypass {
				t.Errorf("Bypass = %v, want %v (reason %q)", b.Bypass, tt.bypass, b.Reason)
			}
			if b.Mode != tt.mode {
				t.Errorf("Mode = %q, want %q", b.Mode, tt.mode)
			}
			if !strings.Contains(b.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", b.Reason, tt.reason)
			}
			if strings.Join(b.Offload, "|") != strings.Join(tt.offload, "|") {
				t.Errorf("Offload = %q, want %q", b.Offload, tt.offload)
			}
			if tt.atomics == "" && b.Atomics != "" || !strings.Contains(b.Atomics, tt.atomics) {
				t.Errorf("Atomics = %q, want %q", b.Atomics, tt.atomics)
			}
			// Whatever the hardware, accumulates and derived datatypes
			// stay on the ghosts, and PUT/GET of predefined types follow
			// the decision.
			if b.Allows(OpAccumulate, true) {
				t.Errorf("an accumulate may bypass the ghosts")
			}
			if b.Allows(OpPutGet, false) {
				t.Errorf("a PUT/GET of a derived datatype may bypass the ghosts")
			}
			if got := b.Allows(OpPutGet, true); got != tt.bypass {
				t.Errorf("Allows(PUT/GET, predefined) = %v, want %v", got, tt.bypass)
			}
		})
	}
}
