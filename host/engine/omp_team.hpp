// The OpenMP team of the calling thread for as long as a study (run_study) or a batch (run_batch,
// the flow study's batches) runs: `--threads` (or a part's one thread) is also what the parallel regions without an explicit team use there. Those are Thrust's
// on the CPU backend (every column an engine allocates and fills) and the reductions that read its
// counters (kernels/launch/segmented_reduce.cu). Without it each of them ran on every core of the
// machine: a `--threads 1` run had three threads, two batch parts side by side on two cores made
// teams of four, and an idle team spun at its barrier beside the step (perf: a fifth of a Santos
// pack benchmark's samples in libgomp with another run on the machine).
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
