// Package rdma describes the RDMA hardware of a node as plain Go values:
// devices, their ports and the capabilities that decide whether the NIC
// completes one-sided operations by itself. It is pure Go, so the policy
// (redirect.DecideBypass) and the reports of `ghost doctor` can be tested
// with fake devices; the discovery through libibverbs is its sub-package
// verbs, the only place with cgo.
package rdma

import "fmt"

// Transport is the device's transport (enum ibv_transport_type).
type Transport int

// The values are libibverbs' own, so verbs can convert by a plain cast.
const (
	TransportUnknown     Transport = -1
	TransportIB          Transport = 0 // InfiniBand and RoCE
	TransportIWARP       Transport = 1
	TransportUSNIC       Transport = 2
	TransportUSNICUDP    Transport = 3
	TransportUnspecified Transport = 4
)

var transportNames = map[Transport]string{
	TransportUnknown: "unknown", TransportIB: "ib", TransportIWARP: "iwarp",
	TransportUSNIC: "usnic", TransportUSNICUDP: "usnic_udp", TransportUnspecified: "unspecified",
}

func (t Transport) String() string { return enumName(transportNames, t) }

// MarshalText makes JSON carry the name, not the number.
func (t Transport) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// PortState is a port's logical state (enum ibv_port_state).
type PortState int

const (
	PortNop         PortState = 0
	PortDown        PortState = 1
	PortInit        PortState = 2
	PortArmed       PortState = 3
	PortActive      PortState = 4
	PortActiveDefer PortState = 5
)

var portStateNames = map[PortState]string{
	PortNop: "nop", PortDown: "down", PortInit: "init", PortArmed: "armed",
	PortActive: "active", PortActiveDefer: "active_defer",
}

func (s PortState) String() string { return enumName(portStateNames, s) }

// MarshalText makes JSON carry the name, not the number.
func (s PortState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LinkLayer is what a port runs on (IBV_LINK_LAYER_*). Ethernet on an
// InfiniBand-transport device is RoCE; an iWARP device's ports are Ethernet
// too.
type LinkLayer int

const (
	LinkUnspecified LinkLayer = 0 // old kernels report this for InfiniBand
	LinkInfiniBand  LinkLayer = 1
	LinkEthernet    LinkLayer = 2
)

var linkLayerNames = map[LinkLayer]string{
	LinkUnspecified: "unspecified", LinkInfiniBand: "infiniband", LinkEthernet: "ethernet",
}

func (l LinkLayer) String() string { return enumName(linkLayerNames, l) }

// MarshalText makes JSON carry the name, not the number.
func (l LinkLayer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// AtomicCap is a device's atomic capability (enum ibv_atomic_cap).
type AtomicCap int

const (
	AtomicNone AtomicCap = 0 // no hardware atomics
	AtomicHCA  AtomicCap = 1 // atomic among operations through this device
	AtomicGlob AtomicCap = 2 // atomic with CPU accesses too
)

var atomicNames = map[AtomicCap]string{
	AtomicNone: "IBV_ATOMIC_NONE", AtomicHCA: "IBV_ATOMIC_HCA", AtomicGlob: "IBV_ATOMIC_GLOB",
}

func (a AtomicCap) String() string { return enumName(atomicNames, a) }

// MarshalText makes JSON carry the name, not the number.
func (a AtomicCap) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

func enumName[E ~int](names map[E]string, v E) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf("%d", int(v))
}

// Port is one port of a device; ports are numbered from 1.
type Port struct {
	Number    int       `json:"number"`
	State     PortState `json:"state"`
	LinkLayer LinkLayer `json:"link_layer"`
}

// Device is one verbs device.
type Device struct {
	Name      string    `json:"name"`
	Transport Transport `json:"transport"`
	AtomicCap AtomicCap `json:"atomic_cap"`
	Firmware  string    `json:"firmware,omitempty"`
	Ports     []Port    `json:"ports"`
	// Problem says why the device could not be opened or queried; its
	// ports are then unknown.
	Problem string `json:"problem,omitempty"`
}

// Kind names what the device is in the words users know: InfiniBand,
// RoCE, iWARP, or its transport.
func (d Device) Kind() string {
	switch d.Transport {
	case TransportIWARP:
		return "iWARP"
	case TransportIB:
		for _, p := range d.Ports {
			if p.LinkLayer == LinkEthernet {
				return "RoCE"
			}
		}
		return "InfiniBand"
	}
	return d.Transport.String()
}

// Caps is what discovery found on this node.
type Caps struct {
	// Library is the rdma-core library that was loaded, or "" when it
	// could not be (rdma-core is not installed).
	Library string   `json:"library"`
	Devices []Device `json:"devices"`
	// Note explains an empty device list when libibverbs gave a reason
	// (this machine: ibv_get_device_list fails with ENOSYS). It is not an
	// error: no device is a normal answer.
	Note string `json:"note,omitempty"`
}

// NoDevice reports whether there is no RDMA device at all, for whatever
// reason (no library, no device, or the kernel has no verbs support).
func (c Caps) NoDevice() bool { return len(c.Devices) == 0 }
