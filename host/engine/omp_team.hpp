// The OpenMP team of the calling thread for as long as a study (run_study) or a batch (run_batch,
// the flow study's batches) runs: `--threads` (or a part's one thread) is also what the parallel
// regions without a team of their own use there. Those are Thrust's on the CPU backend (every
// column an engine allocates and fills) and the reductions that read the engine's counters
// (kernels/launch/segmented_reduce.cu). Before, each of them ran on a team of every core: a
// `saturn run --threads 1` had 2 threads on a 2-core machine, two parts side by side made teams of
// four, and a benchmark profile beside other runs had 39% of its samples in libgomp, spinning at
// a barrier (bench/RESULTS.md, 2026-12-03).
//
// omp_set_num_threads sets the calling thread's own value (OpenMP's nthreads-var is per thread), so
// the workers that run parts side by side each keep theirs; the destructor puts back the one before.
#pragma once

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace saturn {

class OmpTeam {
 public:
  explicit OmpTeam(int threads) {
#if defined(_OPENMP)
    before_ = omp_get_max_threads();
    omp_set_num_threads(threads > 0 ? threads : 1);
#else
    (void)threads;
#endif
  }
  ~OmpTeam() {
#if defined(_OPENMP)
    omp_set_num_threads(before_);
#endif
  }
  OmpTeam(const OmpTeam&) = delete;
  OmpTeam& operator=(const OmpTeam&) = delete;

 private:
  int before_ = 1;
};

}  // namespace saturn
