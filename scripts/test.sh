#!/usr/bin/env bash
# Runs the whole test suite on the CPU backend, then compiles the CUDA backend with nvcc
# (sm_80, sm_90; compile only: no GPU is needed or used) so it never rots.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j"$(nproc)"

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "test: compiling the cuda backend (nvcc, sm_80 and sm_90)"
  cmake -S . -B build-cuda -G Ninja -DSATURN_BACKEND=cuda -DSATURN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-cuda -j"$(nproc)"
  echo "test: cuda backend compiled"
else
  echo "test: nvcc not found; cuda backend not compiled"
fi
