// Unit tests for the static queuing schemes, Adaptive-Th and oblivious routing
// (kernels/isolation/queue_schemes.hpp; PAPERS-SPEC M15, M16, M40) on the 432-node RLFT.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "kernels/isolation/afi.hpp"
#include "kernels/isolation/queue_schemes.hpp"

namespace saturn {
namespace {

SchemeGeometry rlft432() {
  SchemeGeometry g;
  g.endpoints = 432;
  g.endpoints_per_leaf = 6;
  return g;
}

TEST(IsolationQueueSchemes, VcCountsWithAndWithoutTheAfc) {
  const SchemeGeometry g = rlft432();
  EXPECT_EQ(scheme_total_vcs(QueueScheme::k1Q, g, false), 1);
  EXPECT_EQ(scheme_total_vcs(QueueScheme::k1Q, g, true), 2);
  for (QueueScheme s : {QueueScheme::kDbbm, QueueScheme::kVftree, QueueScheme::kFlow2sl}) {
    EXPECT_EQ(scheme_total_vcs(s, g, false), 3);
    EXPECT_EQ(scheme_total_vcs(s, g, true), 4);
  }
  // Under AFI the AFC is reserved: no scheme maps a regular packet onto it.
  for (int s = 0; s < static_cast<int>(QueueScheme::kCount); ++s)
    for (uint32_t src = 0; src < 432; src += 7)
      for (uint32_t dst = 0; dst < 432; ++dst) {
        const QueueScheme q = static_cast<QueueScheme>(s);
        const int vc = scheme_vc(q, src, dst, g);
        ASSERT_GE(vc, 0);
        ASSERT_LT(vc, afc_vc(scheme_total_vcs(q, g, true)));
      }
}

TEST(IsolationQueueSchemes, OneQueueUsesVc0) {
  const SchemeGeometry g = rlft432();
  for (uint32_t d = 0; d < 432; ++d) EXPECT_EQ(scheme_vc(QueueScheme::k1Q, 17, d, g), 0);
}

TEST(IsolationQueueSchemes, DbbmSpreadsDestinationsByModuloWhateverTheSource) {
  const SchemeGeometry g = rlft432();
  std::vector<int> per_vc(3, 0);
  for (uint32_t d = 0; d < 432; ++d) {
    const int vc = scheme_vc(QueueScheme::kDbbm, 0, d, g);
    EXPECT_EQ(vc, static_cast<int>(d % 3));
    for (uint32_t s : {1u, 100u, 431u}) EXPECT_EQ(scheme_vc(QueueScheme::kDbbm, s, d, g), vc);
    ++per_vc[vc];
  }
  EXPECT_EQ(per_vc, std::vector<int>({144, 144, 144}));
  // Consecutive destinations (the 6 endnodes of one leaf) use every VC.
  std::set<int> leaf0;
  for (uint32_t d = 0; d < 6; ++d) leaf0.insert(scheme_vc(QueueScheme::kDbbm, 50, d, g));
  EXPECT_EQ(leaf0.size(), 3u);
}

TEST(IsolationQueueSchemes, VftreeShufflesConsecutiveDestinationLeaves) {
  const SchemeGeometry g = rlft432();
  for (uint32_t src : {0u, 7u, 215u, 431u}) {
    std::vector<int> leaves_per_vc(3, 0);
    for (uint32_t leaf = 0; leaf < 72; ++leaf) {
      const int vc = scheme_vc(QueueScheme::kVftree, src, leaf * 6, g);
      // Every endnode of a leaf shares its VC (the scheme works on leaf switches) ...
      for (uint32_t p = 1; p < 6; ++p) EXPECT_EQ(scheme_vc(QueueScheme::kVftree, src, leaf * 6 + p, g), vc);
      // ... and consecutive destination leaves get different VCs.
      if (leaf > 0) EXPECT_NE(vc, scheme_vc(QueueScheme::kVftree, src, (leaf - 1) * 6, g));
      ++leaves_per_vc[vc];
    }
    EXPECT_EQ(leaves_per_vc, std::vector<int>({24, 24, 24})) << src;
  }
  // The source leaf matters: flows into one destination from different leaves use every VC.
  std::set<int> to_hot;
  for (uint32_t src = 0; src < 432; src += 6) to_hot.insert(scheme_vc(QueueScheme::kVftree, src, 4, g));
  EXPECT_EQ(to_hot.size(), 3u);
  SchemeGeometry dst_only = g;
  dst_only.vftree_source = false;
  EXPECT_EQ(scheme_vc(QueueScheme::kVftree, 300, 13, dst_only), 2);  // leaf 2
}

TEST(IsolationQueueSchemes, Flow2slGroupsConsecutiveDestinations) {
  const SchemeGeometry g = rlft432();
  for (uint32_t d = 0; d < 432; ++d) {
    const int vc = scheme_vc(QueueScheme::kFlow2sl, 5, d, g);
    EXPECT_EQ(vc, static_cast<int>(d / 144)) << d;  // three groups of 144 consecutive endnodes
    EXPECT_EQ(scheme_vc(QueueScheme::kFlow2sl, 400, d, g), vc);
  }
  // Groups follow pods: pods 0-3, 4-7, 8-11 (the four 003 hot spots 4, 120, 244, 431 -> 0, 0, 1, 2).
  EXPECT_EQ(scheme_vc(QueueScheme::kFlow2sl, 0, 120, g), 0);
  EXPECT_EQ(scheme_vc(QueueScheme::kFlow2sl, 0, 244, g), 1);
  EXPECT_EQ(scheme_vc(QueueScheme::kFlow2sl, 0, 431, g), 2);
  SchemeGeometry both = g;
  both.flow2sl_source = true;  // (src group + dst group) mod 3
  EXPECT_EQ(scheme_vc(QueueScheme::kFlow2sl, 300, 10, both), 2);
  EXPECT_EQ(scheme_vc(QueueScheme::kFlow2sl, 300, 300, both), 1);
}

TEST(IsolationQueueSchemes, AdaptiveThStaysBelowThresholdAndPicksTheLeastOccupiedAbove) {
  // A leaf of the 432-node RLFT: up ports 6..11, VC of 21 packets; deterministic port 7.
  const uint64_t up = 0xFC0;
  int32_t free_credits[12] = {0, 0, 0, 0, 0, 0, 3, 5, 12, 20, 20, 1};
  // 75% of 21 = 15.75 used: 5 free (16 used) triggers, 6 free (15 used) does not.
  AdaptiveChoice c = adaptive_th_route(7, up, 6, 21, 75, free_credits, 1, 0, false, false);
  EXPECT_EQ(c.port, 7);
  EXPECT_FALSE(c.adapted);
  c = adaptive_th_route(7, up, 5, 21, 75, free_credits, 1, 0, false, false);
  EXPECT_EQ(c.port, 9);  // the most free credits; 9 and 10 tie, the draw picks the first
  EXPECT_TRUE(c.adapted);
  EXPECT_EQ(adaptive_th_route(7, up, 5, 21, 75, free_credits, 1, 1, false, false).port, 10);
  // Adapted under AFI: never again, deterministic.
  c = adaptive_th_route(7, up, 0, 21, 75, free_credits, 1, 0, true, true);
  EXPECT_EQ(c.port, 7);
  EXPECT_FALSE(c.adapted);
  // Without AFI an adapted packet may adapt again at the next hop.
  EXPECT_EQ(adaptive_th_route(7, up, 0, 21, 75, free_credits, 1, 0, true, false).port, 9);
  // A deterministic port as free as the best is kept.
  free_credits[7] = 20;
  c = adaptive_th_route(7, up, 0, 21, 75, free_credits, 1, 1, false, false);
  EXPECT_EQ(c.port, 7);
  EXPECT_FALSE(c.adapted);
  // Going down there is one minimal port: nothing to adapt.
  EXPECT_EQ(adaptive_th_route(2, 1ull << 2, 0, 21, 75, free_credits, 1, 0, false, false).port, 2);
}

TEST(IsolationQueueSchemes, ObliviousDrawsUniformlyAmongMinimalPorts) {
  const uint64_t up = 0xFC0;
  std::vector<int> hits(12, 0);
  for (uint32_t i = 0; i < 6000; ++i) ++hits[oblivious_port(up, i * 715827u)];  // an even sweep of draws
  for (int p = 0; p < 6; ++p) EXPECT_EQ(hits[p], 0);
  for (int p = 6; p < 12; ++p) EXPECT_NEAR(hits[p], 1000, 10) << p;
  EXPECT_EQ(oblivious_port(1ull << 3, 0xFFFFFFFFu), 3);
}

}  // namespace
}  // namespace saturn
