#!/usr/bin/env bash
# Runs the whole test suite on the CPU backend, the sanitizer and fuzzing step (scripts/sanitize.sh),
# then compiles the CUDA backend with nvcc (sm_80, sm_90; compile only: no GPU is needed or used)
# so it never rots.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j"$(nproc)"

# ASan+UBSan build of saturn and the fuzz driver, small runs, fuzz regressions, libFuzzer where
# clang is installed (README "Fuzzing and sanitizers"). SATURN_SKIP_SANITIZE=1 leaves it out.
if [ "${SATURN_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "test: compiling the cuda backend (nvcc, sm_80 and sm_90)"
  cmake -S . -B build-cuda -G Ninja -DSATURN_BACKEND=cuda -DSATURN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-cuda -j"$(nproc)"
  echo "test: cuda backend compiled"
else
  echo "test: nvcc not found; cuda backend not compiled"
fi
