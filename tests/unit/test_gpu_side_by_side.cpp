// How many batches the CUDA backend runs at once (host/packet/gpu_side_by_side.hpp): as many as
// fill the device's resident threads without oversubscribing it, within the memory budget, the
// batches there are and the host threads that wait on them; never fewer than 1.
#include <gtest/gtest.h>

#include "host/packet/gpu_side_by_side.hpp"

namespace saturn {
namespace {

// An H100's 132 multiprocessors of 2,048 threads.
constexpr int64_t kH100 = 132 * 2048;

TEST(GpuSideBySide, NarrowBatchesFillTheDeviceUpToTheHostThreads) {
  // Rocher Fig. 6: 5 trials of the 432-node RLFT (504 switches) per batch, 122 batches.
  EXPECT_EQ(gpu_side_by_side(kH100, 504 * 5, 1000, 122, 16), 16);  // the 16 host threads bound it
  EXPECT_EQ(gpu_side_by_side(kH100, 504 * 5, 1000, 122, 200), 107);  // the device does: 270,336 / 2,520
  EXPECT_EQ(gpu_side_by_side(kH100, 504 * 5, 1000, 3, 16), 3);       // only 3 batches
  EXPECT_EQ(gpu_side_by_side(kH100, 504 * 5, 2, 122, 16), 2);        // memory holds 2 at once
}

TEST(GpuSideBySide, ABatchThatFillsTheDeviceRunsAlone) {
  // Zdornov Fig. 6: 50 trials of 4,096 nodes (more pairs than the device holds).
  EXPECT_EQ(gpu_side_by_side(kH100, 4096 * 50, 1000, 32, 16), 1);
  EXPECT_EQ(gpu_side_by_side(kH100, kH100 / 2, 1000, 32, 16), 2);
}

TEST(GpuSideBySide, OneOnTheCpuOrForASingleBatch) {
  EXPECT_EQ(gpu_side_by_side(0, 64, 1000, 10, 16), 1);  // the CPU backend has no resident threads
  EXPECT_EQ(gpu_side_by_side(kH100, 64, 1000, 1, 16), 1);
  EXPECT_EQ(gpu_side_by_side(kH100, 64, 0, 10, 16), 1);  // (fit 0 is never asked; still 1)
  EXPECT_EQ(gpu_side_by_side(kH100, 0, 1000, 10, 0), 1);
}

}  // namespace
}  // namespace saturn
