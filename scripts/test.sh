#!/usr/bin/env bash
# Runs the whole test suite on the CPU backend and the sanitizer and fuzzing step
# (scripts/sanitize.sh), then compiles and links the CUDA backend and its
# unit and parity tiers with nvcc (sm_80, sm_90) so neither rots. Compile-only where there is no GPU (CI).
#
# Where scripts/setup.sh built the cuda backend (a machine with a GPU), the whole suite still runs
# on a CPU build (build-cpu): its checks are of the model, which both backends share bit for bit,
# and many of its tests run a few trials for many cycles, the GPU's slowest case (bench/RESULTS.md,
# "First GPU runs": some take minutes each there). The GPU build then runs its unit tier and the
# parity tier, which holds every golden case's GPU results to the CPU's, byte for byte, under both
# GPU programs. scripts/gpu_check.sh runs the whole suite on the GPU as well, with a report.
set -euo pipefail
cd "$(dirname "$0")/.."
# The backend build/ was configured for (its cache may say "auto"): the binary names it.
backend=cpu
case "$(build/saturn --version 2>/dev/null)" in *"(cuda)"*) backend=cuda ;; esac
if [ "$backend" = cuda ]; then
  echo "test: build/ is the cuda backend: the whole suite on a CPU build (build-cpu), then the GPU's unit and parity tiers"
  cmake -S . -B build-cpu -G Ninja -DSATURN_BACKEND=cpu -DSATURN_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-cpu -j"$(nproc)"
  ctest --test-dir build-cpu --output-on-failure -j"$(nproc)"
  ctest --test-dir build -L 'unit|parity' --output-on-failure -j4
else
  ctest --test-dir build --output-on-failure -j"$(nproc)"
fi

# ASan+UBSan build of saturn and the fuzz driver, small runs, fuzz regressions, libFuzzer where
# clang is installed (docs/development.md "Fuzzing and sanitizers"). SATURN_SKIP_SANITIZE=1 leaves it out.
if [ "${SATURN_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi

if [ "$backend" = cuda ]; then
  echo "test: the cuda backend was built and tested above"
elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "test: compiling the cuda backend and its unit and parity tiers (nvcc, sm_80 and sm_90, unoptimized; not run)"
  start=$(date +%s)
  # A compile check (SATURN_CUDA_COMPILE_CHECK): one compute_80 PTX made into sm_80 and sm_90 code
  # by ptxas -O0, host code -O0: 57% of a full build's work, the same compiler passes on every kernel.
  cmake -S . -B build-cuda -G Ninja -DSATURN_BACKEND=cuda -DSATURN_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release \
    -DSATURN_CUDA_COMPILE_CHECK=ON >/dev/null
  # The library, the binaries and the two tiers a GPU machine runs (unit, parity): the integration
  # and papers tiers are the same plain C++ the CPU build above compiled and ran.
  cmake --build build-cuda -j"$(nproc)" --target saturn saturn-bench saturn_unit_tests saturn_parity_tests
  echo "test: cuda backend, unit and parity tiers compiled in $(($(date +%s) - start)) s"
else
  echo "test: nvcc not found; cuda backend not compiled"
fi
