# Ghost: asynchronous progress for MPI RMA through hidden ghost processes.
#   make          build build/libghost.so (MPICH's ABI),
#                 build/libghost-openmpi.so (Open MPI's) and build/ghost
#   make demo     install missing packages, build, run the demo job
#   make test     install missing packages, build, run the whole suite
#   make generate regenerate c/zwrappers.c from the installed MPI headers,
#                 c/zconst.h and internal/metrics/zlabels.go from their one
#                 definition, and the tables of docs/reference.md

GO      ?= go
BUILD   := build
# Packages the build and the tests need (Debian names): MPICH, the real
# applications that `make test` runs a subset of (docs/apps.md), the
# Prometheus server the metrics integration test scrapes with
# (test/metrics_test.go), and Open MPI's compiler and launcher, with which
# test/openmpi_test.go builds and launches Open MPI programs, with
# Debian's mpi4py, which is built on Open MPI, for the Python cases, and
# the Open MPI builds of the applications (test/apps_openmpi_test.go).
DEB_PKGS := mpich libmpich-dev gfortran pkg-config nwchem-mpich libarmci-mpi-dev libcoarrays-mpich-dev prometheus libopenmpi-dev openmpi-bin python3-mpi4py nwchem-openmpi libcoarrays-openmpi-dev
# Installed with --no-install-recommends: Slurm and munge for the Slurm
# integration test (test/slurm_test.go), which runs its own daemons in a
# scratch directory. Their recommendations (mail, database and docs
# packages) are not needed for that. gdb: a test job that runs past its
# timeout has its processes' stacks printed before it is killed
# (test/stacks_test.go).
DEB_PKGS_NO_RECOMMENDS := slurmctld slurmd slurm-client munge gdb
GO_TEST_FLAGS ?= -count=1 -timeout 30m

export CGO_ENABLED := 1

.PHONY: all lib cli deps demo test unit generate clean FORCE

all: lib cli

lib: $(BUILD)/libghost.so $(BUILD)/libghost-openmpi.so
cli: $(BUILD)/ghost

# One source tree, one library per MPI ABI: the build tag openmpi compiles
# the data plane against Open MPI's mpi.h (c/abi.h, c/dataplane_*.go).
# Go's build cache does not spare a c-shared build its cgo steps: each
# library took 8-10 s to build again unchanged, at every `make test`. So
# make rebuilds them only when a file they are built from is newer: every
# Go, C and header file of the packages they import under either tag (go
# list, module cache included), go.mod, go.sum, the export map, this
# Makefile and the Go toolchain's VERSION. The installed MPI headers are
# not among them: after an MPI upgrade, `make clean`. Where go list gives
# nothing, they are rebuilt every time, as before.
LIB_BUILD = $(GO) build -buildmode=c-shared -ldflags=-extldflags=-Wl,--version-script=$(CURDIR)/shim/exports.map
LIB_FILES_OF = $(shell $(GO) list -deps $(1) -f '{{if not .Standard}}{{$$d := .Dir}}{{range .GoFiles}}{{$$d}}/{{.}} {{end}}{{range .CgoFiles}}{{$$d}}/{{.}} {{end}}{{range .IgnoredGoFiles}}{{$$d}}/{{.}} {{end}}{{range .CFiles}}{{$$d}}/{{.}} {{end}}{{range .HFiles}}{{$$d}}/{{.}} {{end}}{{end}}' ./shim 2>/dev/null)
LIB_SRC := $(sort $(call LIB_FILES_OF,) $(call LIB_FILES_OF,-tags openmpi))
LIB_SRC := $(if $(LIB_SRC),$(LIB_SRC) go.mod go.sum shim/exports.map Makefile $(shell $(GO) env GOROOT)/VERSION,FORCE)
$(BUILD)/libghost.so: $(LIB_SRC)
	$(LIB_BUILD) -o $@ ./shim
	rm -f $(BUILD)/libghost.h

# Without Open MPI's headers (libopenmpi-dev, which make deps installs) the
# Open MPI library is left out with a note, and the tests that need it skip.
$(BUILD)/libghost-openmpi.so: $(LIB_SRC)
	@if pkg-config --exists ompi-c; then \
		echo '$(LIB_BUILD) -tags openmpi -o $@ ./shim'; \
		$(LIB_BUILD) -tags openmpi -o $@ ./shim && rm -f $(BUILD)/libghost-openmpi.h; \
	else \
		echo "make: Open MPI's headers not found (pkg-config ompi-c; install libopenmpi-dev): $@ not built"; \
	fi

$(BUILD)/ghost: FORCE
	$(GO) build -o $@ ./cmd/ghost

# Installs what is missing, and only that, so repeated runs are quick.
deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	missing_nr=$$(for p in $(DEB_PKGS_NO_RECOMMENDS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	if [ -n "$$missing$$missing_nr" ]; then \
		echo "installing:" $$missing $$missing_nr; \
		$$SUDO apt-get update -qq || exit 1; \
	fi; \
	if [ -n "$$missing" ]; then \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing || exit 1; \
		: "nwchem-mpich and libopenmpi-dev bring Open MPI, which takes over the alternatives"; \
		$$SUDO update-alternatives --set mpi /usr/bin/mpicc.mpich; \
		$$SUDO update-alternatives --set mpirun /usr/bin/mpirun.mpich; \
		$$SUDO update-alternatives --set mpi-x86_64-linux-gnu /usr/include/x86_64-linux-gnu/mpich; \
		: "libopenmpi-dev recommends OpenCoarrays for Open MPI, which takes caf"; \
		$$SUDO update-alternatives --set caf /usr/bin/caf.mpich; \
	fi; \
	if [ -n "$$missing_nr" ]; then \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing_nr || exit 1; \
	fi

# The demo runs the get-compute-update kernel (NWChem's DFT load balancing:
# claim a task with Fetch_and_op, Get, compute, Accumulate) with 2 ranks
# under plain MPICH, under MPICH's progress thread, and under Ghost, then
# prints the times side by side. Both MPICH runs set MPIR_CVAR_NOLOCAL=1,
# without which MPICH 4.0.2 gets this kernel's small windows wrong (its
# alignment bug), so the comparison is against a correct run. Ghost runs
# with its defaults: on one machine, no ghost process at all.
DEMO_PROG := $(BUILD)/gcu
DEMO_ARGS := 200 2000
demo: deps all
	mpicc -O2 -o $(DEMO_PROG) bench/programs/gcu.c
	@echo "== plain MPICH (MPIR_CVAR_NOLOCAL=1)";           MPIR_CVAR_NOLOCAL=1 mpiexec.hydra -n 2 $(DEMO_PROG) $(DEMO_ARGS) | tee $(BUILD)/demo-plain.txt || true
	@echo "== MPICH progress thread (MPIR_CVAR_NOLOCAL=1)"; MPIR_CVAR_NOLOCAL=1 MPIR_CVAR_ASYNC_PROGRESS=1 mpiexec.hydra -n 2 $(DEMO_PROG) $(DEMO_ARGS) | tee $(BUILD)/demo-thread.txt || true
	@echo "== Ghost (defaults)";                            GHOST_VERBOSE=info $(BUILD)/ghost run -n 2 -- $(DEMO_PROG) $(DEMO_ARGS) | tee $(BUILD)/demo-ghost.txt
	@awk -F'time_s=' '/gcu:/ { split($$2, a, " "); t[FILENAME] = a[1]; r[FILENAME] = $$0 ~ /correct/ ? "correct" : "WRONG" } \
	  END { g = t["$(BUILD)/demo-ghost.txt"]; printf "\nspeed-up of Ghost: %.2fx over plain MPICH (%s), %.2fx over the progress thread (%s); Ghost result: %s\n", \
	  t["$(BUILD)/demo-plain.txt"] / g, r["$(BUILD)/demo-plain.txt"], t["$(BUILD)/demo-thread.txt"] / g, r["$(BUILD)/demo-thread.txt"], r["$(BUILD)/demo-ghost.txt"] }' \
	  $(BUILD)/demo-plain.txt $(BUILD)/demo-thread.txt $(BUILD)/demo-ghost.txt

test: deps all
	LIBGHOST_BUILD_DIR=$(CURDIR)/$(BUILD) $(GO) test $(GO_TEST_FLAGS) ./...

# Pure-Go unit tests only: no MPI job is started.
unit:
	$(GO) test -count=1 -short ./...

generate:
	$(GO) generate ./c ./internal/refdoc

clean:
	rm -rf $(BUILD)

# Benchmarks (bench/): every configuration in one run, same user rank count.
# Results: bench/results/<UTC time>-<host>.json (raw samples), .md (targets
# and tables, also printed) and .png (plots). Smoke results are only a check
# that the suites work, so they go under build/ and never next to real ones.
# BENCH_FLAGS adds driver flags, e.g. BENCH_FLAGS='-rounds 10',
# '-suite progress,gcu' or '-configs plain,ghost-ng1,ghost-ng1-prof'.
# -max-time keeps a whole run inside its budget on a busy machine: runs that
# would start later are skipped and reported.
BENCH_FLAGS ?=

.PHONY: bench bench-smoke bench-intercept

bench: all
	$(GO) run ./bench -suite all -max-time 25m $(BENCH_FLAGS)

bench-smoke: all
	$(GO) run ./bench -suite all -smoke -max-time 3m -out $(BUILD)/bench-smoke $(BENCH_FLAGS)

bench-intercept: all
	$(GO) run ./bench -suite intercept $(BENCH_FLAGS)

# Real applications (issue 5; docs/apps.md): NWChem, our ARMCI-MPI programs
# and OpenCoarrays' shipped tests under plain MPICH, plain MPICH with
# MPIR_CVAR_NOLOCAL=1 and Ghost, and their Open MPI builds with an mpi4py
# program under plain Open MPI and, where build/libghost-openmpi.so is
# built, Ghost on Open MPI, in one table (also written to build/apps.md). deps installs the application packages. `make test` runs
# a subset of the same tests. APPS_RUN picks tests (a go test -run
# pattern; keep TestAppsTable in it), e.g. APPS_RUN='TestApps(ARMCI|Table)';
# APPS_FLAGS adds test flags, e.g. APPS_FLAGS='-apps.maxprocs 5'.
APPS_RUN   ?= ^TestApps
APPS_FLAGS ?=

.PHONY: apps
apps: deps all
	$(GO) test -c -o $(BUILD)/apps.test ./test
	cd test && LIBGHOST_BUILD_DIR=$(CURDIR)/$(BUILD) ../$(BUILD)/apps.test -test.run '$(APPS_RUN)' -test.timeout 150m \
		-apps.full -apps.out $(CURDIR)/$(BUILD)/apps.md $(APPS_FLAGS)
