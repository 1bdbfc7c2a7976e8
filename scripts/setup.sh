#!/usr/bin/env bash
# Installs what is missing (Debian packages) and builds Saturn's CPU backend into build/.
# The CUDA toolkit (nvcc, Thrust, CUB) is expected under /usr/local/cuda; Thrust's headers are
# required even for the CPU build (it uses Thrust's OpenMP device system).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libcli11-dev libgtest-dev librandom123-dev nlohmann-json3-dev
          libtomlplusplus-dev python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -d /usr/local/cuda/include/cccl ] && [ ! -d /usr/local/cuda/lib64/cmake/cccl ]; then
  echo "setup: the CUDA toolkit (CCCL: Thrust/CUB) was not found under /usr/local/cuda" >&2
  exit 1
fi

# auto: the cuda backend where nvidia-smi finds a GPU, else cpu (SATURN_BACKEND=cpu|cuda forces one).
backend="${SATURN_BACKEND:-auto}"
cmake -S . -B build -G Ninja -DSATURN_BACKEND="$backend" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
