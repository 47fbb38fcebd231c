package rdma

import "testing"

func TestKindNames(t *testing.T) {
	for _, tc := range []struct {
		dev  Device
		want string
	}{
		{Device{Transport: TransportIB, Ports: []Port{{LinkLayer: LinkInfiniBand}}}, "InfiniBand"},
		{Device{Transport: TransportIB, Ports: []Port{{LinkLayer: LinkEthernet}}}, "RoCE"},
		{Device{Transport: TransportIWARP}, "iWARP"},
		{Device{Transport: TransportUSNIC}, "usnic"},
	} {
		if got := tc.dev.Kind(); got != tc.want {
			t.Errorf("Kind(%+v) = %q, want %q", tc.dev, got, tc.want)
		}
	}
}
