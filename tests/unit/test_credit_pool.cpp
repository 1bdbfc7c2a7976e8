// The shared VC buffer's credit books (kernels/state/credit_pool.hpp) against a reference model of
// the peer's buffer: per VC the flits it holds; a packet of n flits on VC vc fits if the VC stays
// within min + pool and the flits of all VCs above their minimums stay within the pool. Random
// sends and returns on one port of two trials: after every step, for every VC and every packet size,
// "counter >= n" must say exactly whether the reference buffer takes the packet, and the other
// trial's books must not move.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/state/credit_pool.hpp"

namespace saturn {
namespace {

struct ReferenceBuffer {
  int min, pool;
  std::vector<int> held;
  int pool_used() const {
    int used = 0;
    for (int h : held) used += h > min ? h - min : 0;
    return used;
  }
  bool fits(int vc, int n) const {
    ReferenceBuffer after = *this;
    after.held[vc] += n;
    return after.held[vc] <= min + pool && after.pool_used() <= pool;
  }
};

struct Books {
  ModelParams m{};
  std::vector<int32_t> credits, owed;
  CreditBooks view() { return {credits.data(), owed.data()}; }
};

Books make_books(int vcs, int min, int pool, int trials, int owners) {
  Books b;
  b.m.vcs = vcs;
  b.m.trials = trials;
  b.m.vc_min_flits = min;
  b.m.pool_flits = pool;
  b.m.vc_flits = min + pool;
  b.credits.assign(static_cast<size_t>(owners) * vcs * trials, min + pool);  // as the engine starts them
  b.owed.assign(b.credits.size(), 0);
  return b;
}

void expect_exact(Books& b, const ReferenceBuffer& ref, int owner, int t, const char* when) {
  const int V = b.m.vcs;
  for (int vc = 0; vc < V; ++vc) {
    const int32_t credits = b.credits[at(static_cast<int64_t>(owner) * V + vc, t, b.m.trials)];
    ASSERT_GE(credits, 0) << when;
    ASSERT_LE(credits, b.m.vc_flits - ref.held[vc]) << when << ": more than the VC may still hold";
    for (int n = 1; n <= ref.min + ref.pool + 1; ++n)
      ASSERT_EQ(credits >= n, ref.fits(vc, n)) << when << ": VC " << vc << ", " << n << " flits";
  }
}

TEST(CreditPool, CountersSayExactlyWhatTheSharedBufferTakes) {
  const int V = 3, kMin = 4, kPool = 13, T = 2, kOwners = 2, kOwner = 1, kTrial = 1;
  Books b = make_books(V, kMin, kPool, T, kOwners);
  ReferenceBuffer ref{kMin, kPool, std::vector<int>(V, 0)};
  const std::vector<int32_t> other_trial_before = [&] {
    std::vector<int32_t> c;
    for (int vc = 0; vc < V; ++vc) c.push_back(b.credits[at(static_cast<int64_t>(kOwner) * V + vc, 0, T)]);
    return c;
  }();
  std::mt19937 rng(7);
  int sends = 0, returns = 0, refused = 0;
  expect_exact(b, ref, kOwner, kTrial, "at the start");
  for (int step = 0; step < 20000; ++step) {
    const int vc = static_cast<int>(rng() % V);
    const int n = 1 + static_cast<int>(rng() % 6);
    if (rng() % 2 == 0) {
      const int32_t credits = b.credits[at(static_cast<int64_t>(kOwner) * V + vc, kTrial, T)];
      if (credits < n) {
        ++refused;
        continue;
      }
      credits_take(b.m, b.view(), kOwner, vc, kTrial, n);
      ref.held[vc] += n;
      ++sends;
    } else {
      const int back = std::min(n, ref.held[vc]);
      if (back == 0) continue;
      credits_return(b.m, b.view(), kOwner, vc, kTrial, back);
      ref.held[vc] -= back;
      ++returns;
    }
    ASSERT_EQ(pool_used(b.m, b.view(), kOwner, kTrial), ref.pool_used());
    expect_exact(b, ref, kOwner, kTrial, "after a step");
  }
  EXPECT_GT(sends, 1000);
  EXPECT_GT(returns, 1000);
  EXPECT_GT(refused, 100) << "the buffer should fill often";
  for (int vc = 0; vc < V; ++vc) {
    EXPECT_EQ(b.credits[at(static_cast<int64_t>(kOwner) * V + vc, 0, T)], other_trial_before[vc]) << "trial 0 moved";
    EXPECT_EQ(b.credits[at(static_cast<int64_t>(0) * V + vc, kTrial, T)], kMin + kPool) << "owner 0 moved";
  }
}

// One VC alone may fill the whole buffer but the others' minimums; each other VC keeps its minimum.
TEST(CreditPool, OneVcTakesThePoolTheOthersKeepTheirMinimum) {
  const int V = 3, kMin = 4, kPool = 13;
  Books b = make_books(V, kMin, kPool, 1, 1);
  credits_take(b.m, b.view(), 0, 0, 0, kMin + kPool);
  EXPECT_EQ(b.credits[0], 0);
  EXPECT_EQ(b.credits[1], kMin);
  EXPECT_EQ(b.credits[2], kMin);
  credits_take(b.m, b.view(), 0, 1, 0, kMin);
  EXPECT_EQ(b.credits[1], 0);
  EXPECT_EQ(b.credits[2], kMin);
  credits_return(b.m, b.view(), 0, 0, 0, 5);  // 5 flits of the pool back: anyone's
  EXPECT_EQ(b.credits[0], 5);
  EXPECT_EQ(b.credits[1], 5);
  EXPECT_EQ(b.credits[2], kMin + 5);
}

// Without a pool the counters are the static split's free flits, and the books are not touched.
TEST(CreditPool, WithoutAPoolTheCounterIsTheVcsFreeFlits) {
  Books b = make_books(2, 0, 0, 1, 1);
  b.credits.assign(2, 10);
  credits_take(b.m, b.view(), 0, 1, 0, 3);
  EXPECT_EQ(b.credits[0], 10);
  EXPECT_EQ(b.credits[1], 7);
  credits_return(b.m, b.view(), 0, 1, 0, 2);
  EXPECT_EQ(b.credits[1], 9);
  EXPECT_EQ(b.owed[0] + b.owed[1], 0);
}

}  // namespace
}  // namespace saturn
