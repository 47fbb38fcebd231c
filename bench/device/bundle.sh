#!/bin/bash
# bundle.sh DEST: packs into DEST/bundle.tar.xz everything a bare x86-64
# Linux machine with no MPI and no network needs to run the bench driver's
# wincost, progress, rma-intercept, gcu, apps, apps-2nodes, multiphase and
# multiphase-passive suites (bench/device/run.sh unpacks and runs it
# there). Run from the repository root after `make`, on a Debian 12 machine
# with the packages of test/apps installed (mpich, libmpich-dev,
# nwchem-mpich, libarmci-mpi-dev, libcoarrays-mpich-dev).
#
# What goes in, and why:
#   bin/      the bench driver (compiled here), mpiexec.hydra and its proxy,
#             nwchem.mpich, and run.sh itself: the tree sent to the other
#             machine may be another checkout, without this script
#   prog/     the suites' C programs and our application programs, compiled
#             here with `bench -prebuild` (the other machine has no mpicc)
#   build/    libghost.so and the ghost CLI of this tree
#   caf/      the three OpenCoarrays tests the apps suite runs
#   lib/      every shared library those need except glibc's, resolved with
#             ldd, and UCX's shared-memory transport module (ucx/)
#   share/    NWChem's basis set library
# The tarball is xz-compressed: nwchem.mpich and libmpich are 65 and 41 MB.
set -euo pipefail
dest=${1:?usage: bench/device/bundle.sh DEST (a directory; DEST/bundle.tar.xz is written)}
suites=wincost,progress,rma-intercept,gcu,apps,apps-2nodes,multiphase,multiphase-passive
caftests=/usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests
[ -f build/libghost.so ] && [ -f build/ghost ] || { echo "bundle.sh: run make first, from the repository root" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,prog,build,caf,lib/ucx,share/nwchem}

go build -ldflags='-s -w' -o "$stage/bin/bench" ./bench
go run ./bench -suite "$suites" -prebuild "$stage/prog"
cp build/libghost.so build/ghost "$stage/build/"
cp bench/device/run.sh "$stage/bin/"
cp "$(command -v mpiexec.hydra)" "$(command -v hydra_pmi_proxy)" /usr/bin/nwchem.mpich "$stage/bin/"
# The apps suite's slowCoarrayTests (bench/apps.go).
for t in alloc_comp_multidim_shape allocate_as_barrier allocate_as_barrier_proc; do
	cp "$caftests/$t" "$stage/caf/"
done
# Only the basis sets the inputs name (the whole library is 30 MB); NWChem
# files "6-31g*" as 6-31gs.
mkdir -p "$stage/share/nwchem/libraries"
for b in $(sed -n 's/.*library[[:space:]]\+\([^[:space:]]\+\).*/\1/p' test/apps/nwchem/*.nw | sort -u | tr '*' s); do
	cp "/usr/share/nwchem/libraries/$b" "$stage/share/nwchem/libraries/"
done
# UCX's CMA transport; the InfiniBand modules need rdma-core, and the other
# machine has no InfiniBand device either.
cp -L /usr/lib/x86_64-linux-gnu/ucx/libuct_cma.so.0 "$stage/lib/ucx/"

# Libraries: the closure of what every ELF file in the stage needs, minus
# glibc, which the other machine has (in a newer version).
glibc='^(linux-vdso|ld-linux|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil)\.so'
for f in "$stage"/bin/* "$stage"/prog/* "$stage"/build/* "$stage"/caf/* "$stage"/lib/ucx/* \
	"$(readlink -f /usr/lib/x86_64-linux-gnu/libmpich.so.12)"; do
	file -L "$f" | grep -q ELF || continue
	{ ldd "$f" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
	[[ $name =~ $glibc ]] && continue
	cp -L "$path" "$stage/lib/$name"
done
# A library's own needs must also be there (libslurm's, for hydra).
for f in "$stage"/lib/*.so*; do
	{ ldd "$f" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
	[[ $name =~ $glibc ]] && continue
	[ -e "$stage/lib/$name" ] || cp -L "$path" "$stage/lib/$name"
done
strip --strip-debug "$stage"/lib/*.so* "$stage"/lib/ucx/* "$stage"/prog/* "$stage"/build/* 2>/dev/null || true

mkdir -p "$dest"
ls "$stage/share/nwchem/libraries"
tar -C "$stage" -cf - . | xz -T0 -9 > "$dest/bundle.tar.xz"
du -sh "$stage" "$dest/bundle.tar.xz"
