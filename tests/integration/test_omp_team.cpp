// A run uses the threads it is given and no more (host/engine/omp_team.hpp): Thrust's regions on the
// CPU backend (every column an engine fills) and the counter reductions run on the study's or the
// batch part's team, not on one of every core. With a default team of 4 set beforehand, a one-thread
// run that used it would leave libgomp's 3 pool threads behind in the process (it did before
// omp_team.hpp). One trial: the batch runs on the calling thread (parts on worker threads take
// their pools with them when they end, so a count afterwards would not see them).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "host/config/config.hpp"
#include "host/study/study.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

size_t threads_in_process() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

StudyResult run_tree(const std::vector<std::string>& extra, int threads) {
  std::vector<std::string> sets = {"topology.k=2", "topology.n=3", "simulation.warmup_ns=2000",
                                   "simulation.duration_ns=20000", "simulation.trials=1"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  StudyOptions options;
  options.threads = threads;
  return run_study(load_config_string("", "test", sets), options);
}

TEST(OmpTeam, AOneThreadRunStartsNoOtherThread) {
#if !defined(_OPENMP)
  GTEST_SKIP() << "built without OpenMP";
#else
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc/self/task to count threads";
  omp_set_num_threads(4);  // what a region without a team of its own would use on this thread
  const size_t before = threads_in_process();
  const StudyResult a = run_tree({}, 1);
  const StudyResult b = run_tree({"cc.response=\"lipd\"", "cc.window=1", "cc.marking=\"input_output\"",
                                  "cc.output_threshold=4"}, 1);
  EXPECT_EQ(a.trials.size(), 1u);
  EXPECT_EQ(b.trials.size(), 1u);
  EXPECT_EQ(threads_in_process(), before) << "a --threads 1 run left OpenMP threads behind: some region ran on the "
                                             "default team instead of the run's one thread";
  EXPECT_EQ(omp_get_max_threads(), 4) << "the run did not put back the caller's team";
#endif
}

}  // namespace
}  // namespace saturn
