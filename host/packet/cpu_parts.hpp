// How the CPU backend cuts a batch of trials into parts run side by side, and where it adds
// padding trials to fill a 16-trial SIMD pack. A pack (the automatic step of an AVX2 or AVX-512
// build) runs a trial several times faster than the scalar step that takes the trials left over,
// so a remainder of 10 trials, the Santos figures' trial count, is faster as a pack of 16 with 6
// padding trials (copies of a real trial, run and never reported) than as 10 scalar trials.
// Trials are independent, so parts and padding never change a result, only the time.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "kernels/state/engine_view.hpp"

namespace saturn {

constexpr size_t kPackTrials = 16;

// Scalar CPU time per trial over the pack's, by model family, measured on fixed cycles with
// saturn-bench --step phases against phases16 at 16 trials (bench/RESULTS.md, 2026-11-29):
// dragonfly 1.31 and RLFT with ARN + AFI 1.39 (their routing and isolation run lane by lane in
// both), Santos' congestion control 3.9-5.4, the 64-node fat tree 2.85. Rounded down: padding
// is chosen only where it clearly pays.
//
// That holds while a pack's state is near the cache. A trial whose state fits the last-level cache,
// in a pack whose 16 states are far beyond it, runs no faster in the pack than alone: the scalar
// trial's lines stay cached, the pack's do not (bench/RESULTS.md, 2026-12-07, one thread, pack per
// trial against one trial: default.toml's fat tree 2.6x at 0.24 and 2.1 MB a trial, 1.02x at 7.9 MB,
// 0.91x at 20 MB; the RLFT of Rocher Fig. 6, 5-6 MB: 0.83x with D-mod-K, 0.33x with ARN + AFI;
// Zdornov Fig. 6's adaptive 4096-node tree, 25 MB: 0.87x). Those trials run one a part (the
// estimate 1.0: no pack). A dragonfly trial (115 MB and more) fits no cache, alone or in a pack,
// and its pack keeps its 1.3x. The cache is this machine's: 32 MiB of L3 per core complex
// (`getconf` reports the host's whole L3, 384 MiB, not what a core reaches).
constexpr size_t kLastLevelCacheBytes = size_t{32} << 20;

inline double pack_speedup_estimate(const ModelParams& m, size_t bytes_per_trial = 0) {
  if (bytes_per_trial > 0 && bytes_per_trial <= kLastLevelCacheBytes &&
      kPackTrials * bytes_per_trial > 2 * kLastLevelCacheBytes)
    return 1.0;
  if (m.df.on || iso_on(m.iso)) return 1.3;
  if (model_uses_cc(m)) return 3.9;
  return 2.8;
}

struct CpuPart {
  size_t first = 0, count = 0;  // trials [first, first + count) of the batch
  size_t padding = 0;           // padding trials appended (copies of its last trial)
  int threads = 1;              // OpenMP threads of the part (the engine splits trials among them)
};

// Parts of a batch of n trials on `threads` CPU threads. `speedup` = pack_speedup_estimate, or 0
// where packs do not run (no wide vectors); 1 or less: packs run but do not pay, every trial is a
// part. Trials that run scalar run as parts of one trial each:
// an engine of several scalar trials interleaves them (the layout is trial-minor), and on a network
// whose state is far larger than the caches that costs time. Measured on Jiang's 1056-node
// dragonfly (bench/RESULTS.md, 2026-12-02): five 1-trial engines took 161 CPU-s where one 5-trial
// engine took 246 (1.52x); on the 64-node fat tree they take the same. The parts run `threads` at
// a time, so that is also the most trials in memory at once.
// With packs: two packs or more run as one part per pack plus the remainder; fewer take the cheaper
// (in trial times, pack = 1, scalar = speedup) of all-scalar (threads at a time) and the pack and
// the remainder. A remainder is padded to a pack where r x speedup > 16 and memory allows (`room`:
// the most trials a batch may hold); else its trials are scalar parts. Without packs, a batch large
// enough to give every thread 16 trials is one part on all threads (its trials split among them).
inline std::vector<CpuPart> plan_cpu_parts(size_t n, int threads, double speedup, size_t room) {
  const size_t th = static_cast<size_t>(std::max(1, threads));
  const size_t r = n % kPackTrials;
  const size_t packs = n / kPackTrials;
  const bool pad_pays = speedup > 0 && r > 0 && static_cast<double>(r) * speedup > static_cast<double>(kPackTrials) &&
                        n + (kPackTrials - r) <= room;
  const size_t pad = pad_pays ? kPackTrials - r : 0;
  const auto singles = [](size_t first, size_t count, std::vector<CpuPart>& parts) {
    for (size_t t = first; t < first + count; ++t) parts.push_back(CpuPart{t, 1, 0, 1});
  };
  // Whole packs, each a part of its own, and the remainder: a padded pack, or scalar trials.
  const auto pack_parts = [&] {
    std::vector<CpuPart> parts;
    for (size_t p = 0; p < packs; ++p) parts.push_back(CpuPart{p * kPackTrials, kPackTrials, 0, 1});
    if (pad > 0) parts.push_back(CpuPart{packs * kPackTrials, r, pad, 1});
    else singles(packs * kPackTrials, r, parts);
    return parts;
  };
  // Two packs or more: a part's state is then contiguous, where one engine of n trials spreads a
  // pack's 16 lanes of each element over the whole batch. Measured per thread: 16 trials run 1.2x
  // faster per trial than 128 on the 64-node tree, 1.35x than 64 on the 4096-node tree.
  if (speedup > 1.0 && packs >= 2) return pack_parts();
  if (n <= 1 || (speedup <= 0 && n >= kPackTrials * th)) return {CpuPart{0, n, 0, threads}};
  if (speedup > 1.0) {
    // In trial times on the busiest thread: all scalar, or the pack (and the remainder beside it,
    // or after it on one thread).
    const double scalar_split = static_cast<double>((n + th - 1) / th) * speedup;
    const double remainder = r == 0 ? 0.0 : pad_pays ? static_cast<double>(kPackTrials) : static_cast<double>(r) * speedup;
    const double pack = packs > 0 ? static_cast<double>(kPackTrials) : 0.0;
    const double pack_split = th == 1 ? pack + remainder : std::max(pack, remainder);
    if (pack_split < scalar_split) return pack_parts();
  }
  std::vector<CpuPart> parts;
  singles(0, n, parts);
  return parts;
}

// Part p's trials of `all`, then its padding (copies of its last trial).
template <class Trial>
std::vector<Trial> part_trials(const std::vector<Trial>& all, const CpuPart& p) {
  std::vector<Trial> mine(all.begin() + p.first, all.begin() + p.first + p.count);
  for (size_t i = 0; i < p.padding; ++i) mine.push_back(mine.back());
  return mine;
}

// fn(i) for every i in [0, count), on min(count, threads) worker threads, each taking the next
// index until none is left: the parts of a batch, `threads` at a time.
template <class Fn>
void for_each_on_workers(size_t count, int threads, const Fn& fn) {
  const size_t n_workers = std::min(count, static_cast<size_t>(std::max(1, threads)));
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (size_t w = 0; w < n_workers; ++w)
    workers.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) fn(i);
    });
  for (auto& w : workers) w.join();
}

}  // namespace saturn
