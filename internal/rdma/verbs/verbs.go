// Package verbs finds the RDMA devices of this node through libibverbs
// (rdma-core), which it loads at run time with dlopen: libghost.so and the
// ghost command never link it, so they load and run where rdma-core is
// absent. No library, no device, and ibv_get_device_list failing (without
// kernel verbs support it returns NULL with errno ENOSYS) all read as "no
// RDMA device", never as an error.
package verbs

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// The few libibverbs structures read here are declared by hand rather than
// taken from <infiniband/verbs.h>: the headers (libibverbs-dev) would become
// a build dependency of libghost.so for three structs whose layout is part
// of libibverbs' frozen IBVERBS_1.1 ABI (the symbols are looked up at that
// version below, so a newer library hands out exactly these layouts). Where
// the headers happen to be installed, the static assertions at the end check
// the mirror against them.

// struct ibv_device: two provider pointers, then the two enums read here.
typedef struct {
	void *ops[2];
	int node_type;
	int transport_type;
} ghost_ibv_device;

// struct ibv_device_attr up to atomic_cap, and its tail for phys_port_cnt.
typedef struct {
	char fw_ver[64];
	uint64_t node_guid, sys_image_guid, max_mr_size, page_size_cap;
	uint32_t vendor_id, vendor_part_id, hw_ver;
	int max_qp, max_qp_wr;
	unsigned int device_cap_flags;
	int max_sge, max_sge_rd, max_cq, max_cqe, max_mr, max_pd, max_qp_rd_atom, max_ee_rd_atom,
	    max_res_rd_atom, max_qp_init_rd_atom, max_ee_init_rd_atom;
	int atomic_cap;
	int max_ee, max_rdd, max_mw, max_raw_ipv6_qp, max_raw_ethy_qp, max_mcast_grp,
	    max_mcast_qp_attach, max_total_mcast_qp_attach, max_ah, max_fmr, max_map_per_fmr,
	    max_srq, max_srq_wr, max_srq_sge;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;
} ghost_ibv_device_attr;

// struct _compat_ibv_port_attr, what the exported ibv_query_port fills (the
// header's ibv_query_port is an inline wrapper around it). Providers may
// write the longer struct ibv_port_attr, so it is always passed inside a
// zeroed buffer with room to spare.
typedef struct {
	int state, max_mtu, active_mtu, gid_tbl_len;
	uint32_t port_cap_flags, max_msg_sz, bad_pkey_cntr, qkey_viol_cntr;
	uint16_t pkey_tbl_len, lid, sm_lid;
	uint8_t lmc, max_vl_num, sm_sl, subnet_timeout, init_type_reply, active_width, active_speed,
	    phys_state, link_layer, flags;
} ghost_ibv_port_attr;

typedef union {
	ghost_ibv_port_attr attr;
	char room[256];
} ghost_ibv_port_buf;

static struct {
	void *lib;
	void **(*get_device_list)(int *);
	void (*free_device_list)(void **);
	const char *(*get_device_name)(void *);
	void *(*open_device)(void *);
	int (*close_device)(void *);
	int (*query_device)(void *, ghost_ibv_device_attr *);
	int (*query_port)(void *, uint8_t, ghost_ibv_port_attr *);
} ghost_ibv;

// Loads libibverbs and resolves its entry points at IBVERBS_1.1, once.
// Returns 0, or -1 with a reason in err. The library stays loaded: its
// providers register destructors, and unloading buys nothing.
static int ghost_ibv_load(char *err, size_t len)
{
	if (ghost_ibv.lib)
		return 0;
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		strncpy(err, e ? e : "dlopen failed", len - 1);
		return -1;
	}
#define GHOST_IBV_SYM(field, name)                                              \
	if (!(*(void **)&ghost_ibv.field = dlvsym(lib, name, "IBVERBS_1.1"))) {  \
		strncpy(err, name " not found at version IBVERBS_1.1", len - 1);   \
		dlclose(lib);                                                       \
		return -1;                                                          \
	}
	GHOST_IBV_SYM(get_device_list, "ibv_get_device_list")
	GHOST_IBV_SYM(free_device_list, "ibv_free_device_list")
	GHOST_IBV_SYM(get_device_name, "ibv_get_device_name")
	GHOST_IBV_SYM(open_device, "ibv_open_device")
	GHOST_IBV_SYM(close_device, "ibv_close_device")
	GHOST_IBV_SYM(query_device, "ibv_query_device")
	GHOST_IBV_SYM(query_port, "ibv_query_port")
#undef GHOST_IBV_SYM
	ghost_ibv.lib = lib;
	return 0;
}

// The device list, or NULL with the errno libibverbs left.
static void **ghost_ibv_devices(int *n, int *err)
{
	errno = 0;
	void **list = ghost_ibv.get_device_list(n);
	*err = list ? 0 : errno;
	return list;
}

static void ghost_ibv_free(void **list) { ghost_ibv.free_device_list(list); }
static void *ghost_ibv_at(void **list, int i) { return list[i]; }
static const char *ghost_ibv_name(void *dev) { return ghost_ibv.get_device_name(dev); }
static int ghost_ibv_transport(void *dev) { return ((ghost_ibv_device *)dev)->transport_type; }

#define GHOST_IBV_MAX_PORTS 16

typedef struct {
	int failed;          // 1: open failed, 2: query_device failed
	int atomic_cap;
	int nports;
	char fw_ver[64];
	int state[GHOST_IBV_MAX_PORTS];
	int link_layer[GHOST_IBV_MAX_PORTS];
	int port_failed[GHOST_IBV_MAX_PORTS];
} ghost_ibv_info;

// Opens dev, reads its attributes and ports, and closes it again.
static void ghost_ibv_query(void *dev, ghost_ibv_info *out)
{
	memset(out, 0, sizeof(*out));
	void *ctx = ghost_ibv.open_device(dev);
	if (!ctx) {
		out->failed = 1;
		return;
	}
	ghost_ibv_device_attr attr;
	memset(&attr, 0, sizeof(attr));
	if (ghost_ibv.query_device(ctx, &attr) != 0) {
		out->failed = 2;
		ghost_ibv.close_device(ctx);
		return;
	}
	out->atomic_cap = attr.atomic_cap;
	memcpy(out->fw_ver, attr.fw_ver, sizeof(out->fw_ver) - 1);
	out->nports = attr.phys_port_cnt < GHOST_IBV_MAX_PORTS ? attr.phys_port_cnt : GHOST_IBV_MAX_PORTS;
	for (int p = 0; p < out->nports; p++) {
		ghost_ibv_port_buf buf;
		memset(&buf, 0, sizeof(buf));
		if (ghost_ibv.query_port(ctx, (uint8_t)(p + 1), &buf.attr) != 0) {
			out->port_failed[p] = 1;
			continue;
		}
		out->state[p] = buf.attr.state;
		out->link_layer[p] = buf.attr.link_layer;
	}
	ghost_ibv.close_device(ctx);
}

#if defined(__has_include)
#if __has_include(<infiniband/verbs.h>)
#include <infiniband/verbs.h>
_Static_assert(offsetof(ghost_ibv_device, transport_type) == offsetof(struct ibv_device, transport_type), "ibv_device");
_Static_assert(offsetof(ghost_ibv_device_attr, atomic_cap) == offsetof(struct ibv_device_attr, atomic_cap), "atomic_cap");
_Static_assert(offsetof(ghost_ibv_device_attr, phys_port_cnt) == offsetof(struct ibv_device_attr, phys_port_cnt), "phys_port_cnt");
_Static_assert(offsetof(ghost_ibv_port_attr, state) == offsetof(struct ibv_port_attr, state), "state");
_Static_assert(offsetof(ghost_ibv_port_attr, link_layer) == offsetof(struct ibv_port_attr, link_layer), "link_layer");
_Static_assert(sizeof(ghost_ibv_port_buf) >= sizeof(struct ibv_port_attr), "port buffer");
#endif
#endif
*/
import "C"

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"github.com/ghost-mpi/ghost/internal/rdma"
)

// Library is the soname that is loaded.
const Library = "libibverbs.so.1"

var (
	once   sync.Once
	cached rdma.Caps
)

// Discover lists this node's RDMA devices. It asks libibverbs once per
// process and returns the same answer afterwards.
func Discover() rdma.Caps {
	once.Do(func() { cached = discover() })
	return cached
}

func discover() rdma.Caps {
	var errBuf [256]C.char
	if C.ghost_ibv_load(&errBuf[0], C.size_t(len(errBuf))) != 0 {
		return rdma.Caps{Note: fmt.Sprintf("%s not loaded: %s", Library, C.GoString(&errBuf[0]))}
	}
	caps := rdma.Caps{Library: Library, Devices: []rdma.Device{}}
	var n, errno C.int
	list := C.ghost_ibv_devices(&n, &errno)
	if list == nil {
		caps.Note = fmt.Sprintf("ibv_get_device_list: %v", syscall.Errno(errno))
		return caps
	}
	defer C.ghost_ibv_free(list)
	for i := 0; i < int(n); i++ {
		dev := C.ghost_ibv_at(list, C.int(i))
		caps.Devices = append(caps.Devices, describe(dev))
	}
	return caps
}

func describe(dev unsafe.Pointer) rdma.Device {
	d := rdma.Device{
		Name:      C.GoString(C.ghost_ibv_name(dev)),
		Transport: rdma.Transport(C.ghost_ibv_transport(dev)),
		Ports:     []rdma.Port{},
	}
	var info C.ghost_ibv_info
	C.ghost_ibv_query(dev, &info)
	switch info.failed {
	case 1:
		d.Problem = "ibv_open_device failed"
		return d
	case 2:
		d.Problem = "ibv_query_device failed"
		return d
	}
	d.AtomicCap = rdma.AtomicCap(info.atomic_cap)
	d.Firmware = C.GoString(&info.fw_ver[0])
	for p := 0; p < int(info.nports); p++ {
		port := rdma.Port{Number: p + 1, State: rdma.PortState(info.state[p]), LinkLayer: rdma.LinkLayer(info.link_layer[p])}
		if info.port_failed[p] != 0 {
			// An unreadable port cannot be trusted to carry RDMA.
			port.State = rdma.PortNop
		}
		d.Ports = append(d.Ports, port)
	}
	return d
}
