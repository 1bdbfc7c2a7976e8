#!/usr/bin/env bash
# Runs the whole test suite on the CPU backend and the sanitizer and fuzzing step
# (scripts/sanitize.sh), then compiles and links the CUDA backend and its
# test suite with nvcc (sm_80, sm_90) so neither rots. Compile-only: the cuda tests are not run
# (no GPU here); scripts/gpu_check.sh runs them, with the parity tier, on a machine with a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j"$(nproc)"

# ASan+UBSan build of saturn and the fuzz driver, small runs, fuzz regressions, libFuzzer where
# clang is installed (docs/development.md "Fuzzing and sanitizers"). SATURN_SKIP_SANITIZE=1 leaves it out.
if [ "${SATURN_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "test: compiling the cuda backend and its tests (nvcc, sm_80 and sm_90; not run)"
  start=$(date +%s)
  cmake -S . -B build-cuda -G Ninja -DSATURN_BACKEND=cuda -DSATURN_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-cuda -j"$(nproc)"
  echo "test: cuda backend and tests compiled in $(($(date +%s) - start)) s"
else
  echo "test: nvcc not found; cuda backend not compiled"
fi
