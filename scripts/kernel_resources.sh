#!/usr/bin/env bash
# Kernel resource table: compiles the kernel translation units with nvcc -Xptxas -v for one GPU
# architecture and prints, per kernel, registers, spills, stack, static shared memory and the
# theoretical occupancy on an H100 (SM 9.0). Compile-only: needs nvcc, not a GPU.
#
# Usage: scripts/kernel_resources.sh [FILE.cu ...]      (default: kernels/launch/*.cu)
# Environment (optional):
#   ARCH=90                         the sm_ architecture ptxas compiles for
#   NVCC=/usr/local/cuda/bin/nvcc
#   BLOCK_SIZES="name=256 ..."      threads per block for kernels whose launch code the script
#                                   cannot read (name = the kernel's name without template
#                                   arguments, e.g. switch_kernel)
#   DYNAMIC_SMEM="name=bytes ..."   dynamic shared memory per block (the <<<g, b, BYTES>>> of the
#                                   launch code, invisible to ptxas), added for the occupancy
# Block sizes are read from the launch code: the file's `kBlock = N` constant (the one block size
# every <<<grid, kBlock>>> of today's launch files uses). A file with several different kBlock
# values, or none, leaves its kernels' occupancy as "?" unless BLOCK_SIZES names them.
set -euo pipefail
cd "$(dirname "$0")/.."

arch=${ARCH:-90}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || nvcc=$(command -v nvcc || true)
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "kernel_resources: nvcc not found (set NVCC=/path/to/nvcc)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then files=("$@"); else files=(kernels/launch/*.cu); fi
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "kernel_resources: no such file '$f'" >&2; exit 2; }
done
demangle=c++filt
[ -x "$(dirname "$nvcc")/cu++filt" ] && demangle="$(dirname "$nvcc")/cu++filt"

# The cuda build's own flags (CMakeLists.txt: SATURN_CUDA_FLAGS and the compile definitions), so
# the registers are those of the binary that runs.
flags=(-std=c++17 -O3 -DNDEBUG "-gencode=arch=compute_${arch},code=sm_${arch}" --fmad=false --extended-lambda
       --expt-relaxed-constexpr -Xcompiler=-ffp-contract=off -DSATURN_BACKEND_CUDA=1 '-DSATURN_BACKEND_NAME="cuda"'
       '-DSATURN_VERSION="resources"' -DTOML_EXCEPTIONS=1 -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA
       -DTHRUST_HOST_SYSTEM=THRUST_HOST_SYSTEM_CPP -I. -Xptxas -v)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "nvcc $("$nvcc" --version | sed -n 's/.*release \([^,]*\).*/\1/p'), sm_${arch}, flags of the cuda build" \
     "(-O3 --fmad=false). Occupancy: theoretical, H100 (SM 9.0: 65,536 registers, 2,048 threads," \
     "32 blocks, 228 KB shared memory per SM; registers allocated per warp in units of 256;" \
     "1 KB of shared memory reserved per block)."
echo

for f in "${files[@]}"; do
  "$nvcc" "${flags[@]}" -c "$f" -o "$tmp/out.o" >"$tmp/ptxas.txt" 2>&1 || {
    echo "kernel_resources: nvcc failed on $f:" >&2
    tail -n 30 "$tmp/ptxas.txt" >&2
    exit 1
  }
  # The launch code's block size: one distinct `kBlock = N` in the file.
  file_blocks=$(grep -oE 'kBlock[[:space:]]*=[[:space:]]*[0-9]+' "$f" | grep -oE '[0-9]+$' | sort -u || true)
  file_block="?"
  [ "$(wc -w <<<"$file_blocks")" = 1 ] && file_block=$file_blocks
  echo "#### $f (block size from the launch code: $file_block)"
  echo
  echo "| kernel | threads/block | registers | spill stores (B) | spill loads (B) | stack frame (B) | smem/block (B, static + DYNAMIC_SMEM) | blocks/SM (limited by) | occupancy |"
  echo "|---|---|---|---|---|---|---|---|---|"
  # ptxas -v prints, per entry function: "Compiling entry function 'NAME' for 'sm_90'", then
  # "Function properties for NAME" with "N bytes stack frame, N bytes spill stores, N bytes spill
  # loads", then "Used N registers, ... N bytes smem, ...". Device functions that were not inlined
  # get properties too; only entry functions become rows.
  awk -v q="'" '
    /Compiling entry function/ { split($0, part, q); entry = part[2]; order[++n] = entry; next }
    /Function properties for/ { prop = $NF; next }
    /bytes stack frame/ { if (prop != "") { stack[prop] = $1; sst[prop] = $5; sld[prop] = $9 } prop = ""; next }
    /Used [0-9]+ registers/ && entry != "" {
      regs[entry] = 0; smem[entry] = 0
      for (i = 1; i <= NF; i++) {
        if ($(i + 1) ~ /^registers/) regs[entry] = $i
        if ($(i + 1) == "bytes" && $(i + 2) ~ /^smem/) smem[entry] = $i
      }
      next
    }
    END { for (k = 1; k <= n; k++) { e = order[k]; printf "%s %s %s %s %s %s\n", e, regs[e], (sst[e] == "" ? 0 : sst[e]), (sld[e] == "" ? 0 : sld[e]), (stack[e] == "" ? 0 : stack[e]), smem[e] } }
  ' "$tmp/ptxas.txt" >"$tmp/rows.txt"
  if [ ! -s "$tmp/rows.txt" ]; then
    echo "| (no kernels in this file for sm_${arch}) | | | | | | | | |"
    echo
    continue
  fi
  while read -r mangled regs sst sld stack smem; do
    name=$("$demangle" "$mangled" | sed -E 's/^void //; s/saturn:://g; s/\(anonymous namespace\):://g; s/\(.*\)$//; s/^([^<(]*::)+//')
    base=${name%%<*}
    block=$file_block
    for pair in ${BLOCK_SIZES:-}; do
      [ "${pair%%=*}" = "$base" ] && block=${pair#*=}
    done
    for pair in ${DYNAMIC_SMEM:-}; do
      [ "${pair%%=*}" = "$base" ] && smem=$((smem + ${pair#*=}))
    done
    [ ${#name} -gt 70 ] && name="${name:0:67}..."
    if [[ "$block" =~ ^[0-9]+$ ]] && [ "$block" -gt 0 ]; then
      # The CUDA occupancy calculator's rule for SM 9.0.
      warps=$(((block + 31) / 32))
      regs_per_warp=$((((regs * 32 + 255) / 256) * 256))
      [ "$regs_per_warp" -eq 0 ] && regs_per_warp=256
      by_regs=$(((65536 / regs_per_warp) / warps))
      by_threads=$((2048 / (warps * 32)))
      by_smem=$((233472 / (smem + 1024)))
      blocks=32 limiter="blocks"
      [ "$by_threads" -lt "$blocks" ] && blocks=$by_threads limiter="threads"
      [ "$by_regs" -lt "$blocks" ] && blocks=$by_regs limiter="registers"
      [ "$by_smem" -lt "$blocks" ] && blocks=$by_smem limiter="shared memory"
      [ "$block" -gt 1024 ] && blocks=0 limiter="block > 1024 threads"
      permille=$((1000 * blocks * warps / 64))
      occ="$((permille / 10)).$((permille % 10))% ($((blocks * warps))/64 warps)"
      per_sm="$blocks ($limiter)"
    else
      occ="?" per_sm="?"
    fi
    echo "| \`$name\` | $block | $regs | $sst | $sld | $stack | $smem | $per_sm | $occ |"
  done <"$tmp/rows.txt"
  echo
done
