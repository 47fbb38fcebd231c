package verbs

import (
	"path/filepath"
	"testing"
)

// This machine has libibverbs but no verbs device: the kernel has no RDMA
// support, and ibv_get_device_list fails with ENOSYS. Where a machine has a
// device, the test only checks that what came back is well formed.
func TestDiscoverReadsNoDeviceAsEmpty(t *testing.T) {
	caps := Discover()
	t.Logf("discovered: %+v", caps)
	if caps.Devices == nil && caps.Library != "" {
		t.Errorf("Devices is nil with the library loaded; want an empty list so JSON says []")
	}
	if hasVerbsDevices() {
		for _, d := range caps.Devices {
			if d.Name == "" {
				t.Errorf("device without a name: %+v", d)
			}
		}
		return
	}
	if !caps.NoDevice() {
		t.Fatalf("no /sys/class/infiniband device here, but Discover found %+v", caps.Devices)
	}
	if again := Discover(); again.Note != caps.Note || again.Library != caps.Library {
		t.Errorf("second Discover = %+v, want the cached %+v", again, caps)
	}
}

// hasVerbsDevices tells whether the kernel exposes any RDMA device.
func hasVerbsDevices() bool {
	m, _ := filepath.Glob("/sys/class/infiniband/*")
	return len(m) > 0
}
