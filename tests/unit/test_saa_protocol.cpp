// Zdornov & Birk Algorithm 1 (PAPERS-SPEC M29, item 7) on hand-made and random route instances:
// one probe after the last AnnounceStart gives every flow the central SAA W_f exactly, no later
// probe changes it before the flow ends, AnnounceEnd returns every W_l to exactly 0; AnnounceStart
// alone is not enough when starts are staggered.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/flow/fluid.hpp"
#include "kernels/flow/saa_protocol.hpp"

namespace saturn {
namespace {

struct Instance {
  std::vector<std::vector<int64_t>> paths;
  std::vector<int64_t> units_, starts, link_w_, known_, carried_, changed_at_;
  std::vector<int32_t> hop_, probes_, final_probe_;
  std::vector<uint8_t> packet_, flags_;
  std::vector<double> fluid_, rates;
  int64_t links = 0, scale_ = 1, flow_time = 1000;
  int32_t num_flows() const { return static_cast<int32_t>(paths.size()); }
  int64_t num_links() const { return links; }
  int path_len(int32_t f) const { return static_cast<int>(paths[f].size()); }
  int64_t link(int32_t f, int i) const { return paths[f][i]; }
  double size(int32_t f) const { return static_cast<double>(units_[f]) / static_cast<double>(scale_); }
  double capacity(int64_t) const { return 1.0; }
  double& fluid(int64_t l) { return fluid_.at(l); }
  double& rate(int32_t f) { return rates.at(f); }
  int64_t units(int32_t f) const { return units_[f]; }
  int64_t scale() const { return scale_; }
  int64_t start(int32_t f) const { return starts[f]; }
  int64_t flow_time_steps() const { return flow_time; }
  int64_t& link_w(int64_t l) { return link_w_.at(l); }
  int64_t& known(int32_t f) { return known_.at(f); }
  int64_t& carried(int32_t f) { return carried_.at(f); }
  int64_t& changed_at(int32_t f) { return changed_at_.at(f); }
  int32_t& hop(int32_t f) { return hop_.at(f); }
  int32_t& probes(int32_t f) { return probes_.at(f); }
  int32_t& final_probe(int32_t f) { return final_probe_.at(f); }
  uint8_t& packet(int32_t f) { return packet_.at(f); }
  uint8_t& flags(int32_t f) { return flags_.at(f); }
  int max_len() const {
    size_t m = 0;
    for (const auto& p : paths) m = std::max(m, p.size());
    return static_cast<int>(m);
  }
  // Scratch, then the central SAA rates (the reference the protocol is checked against).
  SaaResult prepare() {
    const size_t F = paths.size();
    link_w_.assign(links, 7);  // garbage: the protocol must clear it
    for (auto* c : {&known_, &carried_, &changed_at_}) c->assign(F, -3);
    for (auto* c : {&hop_, &probes_, &final_probe_}) c->assign(F, -3);
    packet_.assign(F, 9);
    flags_.assign(F, 0xff);
    fluid_.assign(links, 0.0);
    rates.assign(F, 0.0);
    return saa_rates(*this);
  }
};

// Flows 0: links {0, 1}; 1: {1, 2}; 2: {2}; started at steps 0, 1, 2. Worked by hand:
// W = (1, 2, 2), so every central W_f is 2, but flow 0's AnnounceStart passes link 1
// before flow 1 has announced and returns 1. Its first probe (launched at step 4, in the step in
// which the last AnnounceStart returns but before it does) fixes it at step 7; its second probe is
// the post-announce check.
TEST(SaaProtocol, HandWorkedThreeFlows) {
  Instance in;
  in.links = 3;
  in.paths = {{0, 1}, {1, 2}, {2}};
  in.units_ = {1, 1, 1};
  in.starts = {0, 1, 2};
  in.flow_time = 100;
  const SaaResult central = in.prepare();
  EXPECT_EQ(central.max_link_weight, 2.0);
  const SaaProtocolResult r = saa_protocol(in);
  EXPECT_EQ(r.announce_mismatches, 1);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_EQ(r.late_changes, 0);
  EXPECT_EQ(r.probes_to_final, 1);
  EXPECT_EQ(r.acks, 1);
  EXPECT_EQ(r.converged_steps, 6);  // flow 0's change at step 7, the last start at step 2
  EXPECT_EQ(r.residual_units, 0);
  for (int64_t w : in.known_) EXPECT_EQ(w, 2);
  // Every flow ends at t0 + W_f * 100 = 202. Flow 1 probes every 4 steps from step 5: its probe
  // launched at 201 returns at 204 (discarded: the flow has ended), its AnnounceEnd goes out at 205
  // and is back at the end of step 208, the last one.
  EXPECT_EQ(r.steps, 209);
  for (uint8_t fl : in.flags_) EXPECT_TRUE(fl & kSaaFlagDone);
}

// The check can fail: a central rate that differs from what the links hold is a mismatch, and a
// flow that ends before its post-announce probe counts as one too.
TEST(SaaProtocol, MismatchesAreDetected) {
  Instance in;
  in.links = 3;
  in.paths = {{0, 1}, {1, 2}, {2}};
  in.units_ = {1, 1, 1};
  in.starts = {0, 1, 2};
  in.prepare();
  in.rates[2] = 0.25;  // pretend the central W_2 were 4
  EXPECT_EQ(saa_protocol(in).mismatches, 1);
  in.prepare();
  in.flow_time = 1;  // flows end at step 2 + W_f: before any post-announce probe returns
  const SaaProtocolResult r = saa_protocol(in);
  EXPECT_EQ(r.mismatches, 3);
  EXPECT_EQ(r.residual_units, 0);
}

Instance random_instance(std::mt19937_64& rng, int flows, int links, int max_len, bool unequal, int stagger) {
  Instance in;
  in.links = links;
  std::vector<int64_t> all(links);
  for (int l = 0; l < links; ++l) all[l] = l;
  std::vector<int64_t> order(flows);
  for (int f = 0; f < flows; ++f) order[f] = f;
  std::shuffle(order.begin(), order.end(), rng);
  in.starts.assign(flows, 0);
  in.scale_ = unequal ? 8 : 1;  // unequal: sizes 1/8 .. 2 flow-times in exact eighths
  for (int f = 0; f < flows; ++f) {
    std::shuffle(all.begin(), all.end(), rng);
    const int len = 1 + static_cast<int>(rng() % static_cast<uint64_t>(std::min(max_len, links)));
    in.paths.emplace_back(all.begin(), all.begin() + len);
    in.units_.push_back(unequal ? 1 + static_cast<int64_t>(rng() % 16) : 1);
    // Either a random order at a fixed stagger, or independent random start steps.
    in.starts[order[f]] = stagger > 0 ? f * stagger : static_cast<int64_t>(rng() % 50);
  }
  // A flow-time long enough that every flow has converged before the first one ends: W_f >= 1/8.
  in.flow_time = 8 * 8 * in.max_len();
  return in;
}

TEST(SaaProtocol, RandomInstancesConvergeAfterOneProbeAndLeaveNoWeight) {
  std::mt19937_64 rng(7);
  int cases = 0, announce_wrong = 0, probes_needed = 0;
  for (int rep = 0; rep < 300; ++rep) {
    const bool unequal = rep % 2 == 1;
    const int stagger = rep % 3;  // 0: random start steps
    Instance in = random_instance(rng, 2 + static_cast<int>(rng() % 40), 3 + static_cast<int>(rng() % 20), 7, unequal, stagger);
    in.prepare();
    const SaaProtocolResult r = saa_protocol(in);
    SCOPED_TRACE(rep);
    EXPECT_EQ(r.mismatches, 0);
    EXPECT_EQ(r.late_changes, 0);
    EXPECT_EQ(r.residual_units, 0);
    for (int64_t w : in.link_w_) EXPECT_EQ(w, 0);
    // Announce (<= 2 len after t0), wait for the probe in flight (<= 2 len), one probe (2 len).
    EXPECT_LE(r.converged_steps, 6 * in.max_len());
    EXPECT_GE(r.converged_steps, 1);
    EXPECT_LE(r.acks, r.probes);
    for (int32_t f = 0; f < in.num_flows(); ++f) {
      EXPECT_TRUE(in.flags_[f] & kSaaFlagDone);
      EXPECT_TRUE(saa_is_central(in, f, in.known_[f])) << "flow " << f;
    }
    ++cases;
    announce_wrong += r.announce_mismatches > 0;
    probes_needed += r.probes_to_final > 0;
  }
  EXPECT_EQ(cases, 300);
  // Staggered starts: AnnounceStart alone is often wrong, so the probe is what makes this pass.
  EXPECT_GT(announce_wrong, 100);
  EXPECT_GT(probes_needed, 100);
}

// All flows starting at once still race through the links in index order: only the last flow to
// pass a link sees its full weight on the way out.
TEST(SaaProtocol, SimultaneousStartsStillNeedTheProbe) {
  Instance in;
  in.links = 1;
  in.paths = {{0}, {0}, {0}};
  in.units_ = {1, 1, 1};
  in.starts = {0, 0, 0};
  in.prepare();
  const SaaProtocolResult r = saa_protocol(in);
  EXPECT_EQ(r.announce_mismatches, 2);  // AnnounceStart returns 1, 2, 3
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_EQ(r.probes_to_final, 1);
  EXPECT_EQ(r.residual_units, 0);
}

}  // namespace
}  // namespace saturn
