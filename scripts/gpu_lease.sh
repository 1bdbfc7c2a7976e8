#!/usr/bin/env bash
# A GPU check on a lent machine that cannot build Saturn itself (it has nvcc but not the Debian
# headers: CLI11, toml++, nlohmann-json, Random123, GoogleTest). Two halves:
#
#   scripts/gpu_lease.sh pack    here: builds the cuda backend and tests for ARCH (default 90) in
#                                build-gpu and packs the binaries and CTest files into
#                                .gpu-carry/build-gpu.tar.gz (about 20 MB)
#   scripts/gpu_lease.sh run     there, in a copy of this working tree that carries .gpu-carry:
#                                unpacks build-gpu and runs scripts/gpu_check.sh with PREBUILT=1
#   scripts/gpu_lease.sh unpack  there: unpacks build-gpu only (for ctest, scripts/gpu_tune.sh or
#                                scripts/gpu_side_by_side.sh)
#
# The binaries carry the build's absolute paths (source and build directory, for the tests'
# configs and CTest's files); `run` links the packing machine's source path to the tree it runs in.
# The binaries link libstdc++, libm, libgcc_s and libc only (cudart is static), so a machine with
# a newer glibc runs them. Environment of `run`: as scripts/gpu_check.sh (SUITE_TIMEOUT,
# BENCH_TRIALS, BENCH_SECONDS, CTEST_JOBS...).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

case "${1:-}" in
  pack)
    arch=${ARCH:-90}
    cmake -S . -B build-gpu -G Ninja -DSATURN_BACKEND=cuda -DSATURN_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CUDA_ARCHITECTURES=$arch" >/dev/null
    cmake --build build-gpu -j"$(nproc)"
    # The gtest lists are discovered at test time (PRE_TEST) by a CMake module the lent machine
    # may not have at this path: list them here, once, so its ctest only includes the results.
    ctest --test-dir build-gpu -N >/dev/null
    mkdir -p .gpu-carry
    grep -qxF '/.gpu-carry/' .git/info/exclude 2>/dev/null || echo '/.gpu-carry/' >>.git/info/exclude
    echo "$root" >.gpu-carry/source_dir
    # Binaries, CTest files and the gtest discovery lists; no objects.
    (cd build-gpu && find . -path ./CMakeFiles -prune -o -path '*/CMakeFiles' -prune -o -type f \
        \( -name 'saturn*' ! -name '*.a' -o -name 'CTestTestfile.cmake' -o -name '*_include.cmake' -o -name '*_tests.cmake' \) \
        -print | tar czf "$root/.gpu-carry/build-gpu.tar.gz" -T -)
    ls -la .gpu-carry
    ;;
  run | unpack)
    [ -f .gpu-carry/build-gpu.tar.gz ] || { echo "gpu_lease: no .gpu-carry/build-gpu.tar.gz (run 'pack' first and carry .gpu-carry)" >&2; exit 2; }
    src=$(cat .gpu-carry/source_dir)
    if [ "$src" != "$root" ]; then
      [ -e "$src" ] && [ ! -L "$src" ] && { echo "gpu_lease: $src exists here and is not a link" >&2; exit 2; }
      mkdir -p "$(dirname "$src")"
      ln -sfn "$root" "$src"
    fi
    rm -rf build-gpu && mkdir build-gpu && tar xzf .gpu-carry/build-gpu.tar.gz -C build-gpu
    # CTest's cost data from a CPU run, where carried, so the slowest tests start first.
    if [ -f .gpu-carry/CTestCostData.txt ]; then
      mkdir -p build-gpu/Testing/Temporary && cp .gpu-carry/CTestCostData.txt build-gpu/Testing/Temporary/
    fi
    [ "$1" = unpack ] && exit 0
    PREBUILT=1 SKIP_RESOURCES=${SKIP_RESOURCES:-1} BUILD_DIR=build-gpu bash scripts/gpu_check.sh "${2:-}"
    ;;
  *)
    echo "usage: scripts/gpu_lease.sh pack | run [REPORT.md] | unpack" >&2
    exit 2
    ;;
esac
