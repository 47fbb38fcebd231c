# Ghost: asynchronous progress for MPI RMA through hidden ghost processes.
#   make          build build/libghost.so and build/ghost
#   make demo     install missing packages, build, run the demo job
#   make test     install missing packages, build, run the whole suite
#   make generate regenerate c/zwrappers.c from the installed MPI headers

GO      ?= go
BUILD   := build
# Packages the build and the tests need (Debian names).
DEB_PKGS := mpich libmpich-dev gfortran pkg-config
GO_TEST_FLAGS ?= -count=1 -timeout 20m

export CGO_ENABLED := 1

.PHONY: all lib cli deps demo test unit generate clean FORCE

all: lib cli

lib: $(BUILD)/libghost.so
cli: $(BUILD)/ghost

# Go tracks its own dependencies; FORCE lets it decide what to rebuild.
$(BUILD)/libghost.so: FORCE
	$(GO) build -buildmode=c-shared -o $@ ./shim
	rm -f $(BUILD)/libghost.h

$(BUILD)/ghost: FORCE
	$(GO) build -o $@ ./cmd/ghost

# Installs what is missing, and only that, so repeated runs are quick.
deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Until RMA redirection lands, the demo shows the foundation: the program
# sees a world of user ranks only, on one node and on two fake nodes, and each
# ghost reports what it cost at finalize.
DEMO_PROG := $(BUILD)/demo-world
demo: deps all
	mpicc -O2 -Itest/programs -o $(DEMO_PROG) test/programs/world.c
	@echo "== 3 user ranks + 1 ghost on one node"
	GHOST_VERBOSE=info $(BUILD)/ghost run -n 3 -g 1 -- $(DEMO_PROG) 3 3
	@echo "== 4 user ranks on two fake nodes, 1 ghost each"
	GHOST_VERBOSE=info $(BUILD)/ghost run -n 4 -g 1 --hosts nodeA:3,nodeB:3 -- $(DEMO_PROG) 4 2

test: deps all
	LIBGHOST_BUILD_DIR=$(CURDIR)/$(BUILD) $(GO) test $(GO_TEST_FLAGS) ./...

# Pure-Go unit tests only: no MPI job is started.
unit:
	$(GO) test -count=1 -short ./...

generate:
	$(GO) generate ./c

clean:
	rm -rf $(BUILD)

# Benchmarks (bench/): every configuration in one run, same user rank count.
# Results: bench/results/<UTC time>-<host>.json (raw samples) and .md (table,
# also printed). Smoke results are only a check that the suites work, so they
# go under build/ and never next to real ones. BENCH_FLAGS adds driver flags,
# e.g. BENCH_FLAGS='-rounds 10' or '-configs plain,ghost-ng1,ghost-ng1-prof'.
BENCH_FLAGS ?=

.PHONY: bench bench-smoke bench-intercept

bench: all
	$(GO) run ./bench -suite all $(BENCH_FLAGS)

bench-smoke: all
	$(GO) run ./bench -suite all -smoke -out $(BUILD)/bench-smoke $(BENCH_FLAGS)

bench-intercept: all
	$(GO) run ./bench -suite intercept $(BENCH_FLAGS)
