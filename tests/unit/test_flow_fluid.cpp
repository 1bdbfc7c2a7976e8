// Fluid rate models on random route instances (PAPERS-SPEC item 6): SAA rates are feasible and
// finish in exactly W (Theorem 1), with unequal sizes and capacities; max-min water-filling
// matches a brute-force progressive filling in small steps and has the bottleneck property.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/flow/fluid.hpp"

namespace saturn {
namespace {

struct Instance {
  std::vector<std::vector<int64_t>> paths;
  std::vector<double> sizes, caps, fluid_, rates;
  std::vector<uint16_t> live_;
  std::vector<uint32_t> csr_begin_, csr_flow_, heap_;
  std::vector<int32_t> heap_pos_;
  int32_t num_flows() const { return static_cast<int32_t>(paths.size()); }
  int64_t num_links() const { return static_cast<int64_t>(caps.size()); }
  int path_len(int32_t f) const { return static_cast<int>(paths[f].size()); }
  int64_t link(int32_t f, int i) const { return paths[f][i]; }
  double size(int32_t f) const { return sizes[f]; }
  double capacity(int64_t l) const { return caps[l]; }
  double& fluid(int64_t l) { return fluid_[l]; }
  uint16_t& live(int64_t l) { return live_[l]; }
  double& rate(int32_t f) { return rates[f]; }
  uint32_t& csr_begin(int64_t l) { return csr_begin_.at(l); }
  uint32_t& csr_flow(int64_t i) { return csr_flow_.at(i); }
  uint32_t& heap(int64_t i) { return heap_.at(i); }
  int32_t& heap_pos(int64_t l) { return heap_pos_.at(l); }
  void size_scratch() {
    const size_t L = caps.size();
    size_t entries = 0;
    for (const auto& p : paths) entries += p.size();
    fluid_.assign(L, 0.0);
    live_.assign(L, 0);
    rates.assign(paths.size(), 0.0);
    csr_begin_.assign(L + 1, 0);
    csr_flow_.assign(entries, 0);
    heap_.assign(L, 0);
    heap_pos_.assign(L, 0);
  }
};

// Random routes: each flow crosses 1..max_len distinct links of L.
Instance random_instance(std::mt19937_64& rng, int flows, int links, int max_len, bool unequal_caps, bool unequal_sizes) {
  Instance in;
  std::uniform_real_distribution<double> u(0.05, 3.0);
  for (int l = 0; l < links; ++l) in.caps.push_back(unequal_caps ? u(rng) : 1.0);
  std::vector<int64_t> all(links);
  for (int l = 0; l < links; ++l) all[l] = l;
  for (int f = 0; f < flows; ++f) {
    std::shuffle(all.begin(), all.end(), rng);
    const int len = 1 + static_cast<int>(rng() % static_cast<uint64_t>(std::min(max_len, links)));
    in.paths.emplace_back(all.begin(), all.begin() + len);
    in.sizes.push_back(unequal_sizes ? u(rng) : 1.0);
  }
  in.size_scratch();
  return in;
}

std::vector<double> link_loads(const Instance& in, const std::vector<double>& per_flow) {
  std::vector<double> load(in.caps.size(), 0.0);
  for (size_t f = 0; f < in.paths.size(); ++f)
    for (int64_t l : in.paths[f]) load[l] += per_flow[f];
  return load;
}

TEST(FluidSaa, RatesAreFeasibleAndFinishInExactlyW) {
  std::mt19937_64 rng(12345);
  for (int rep = 0; rep < 300; ++rep) {
    const bool caps = rep % 2 == 1, sizes = rep % 3 != 0;
    Instance in = random_instance(rng, 1 + rep % 40, 2 + rep % 17, 6, caps, sizes);
    const SaaResult r = saa_rates(in);
    // W = max_l sum_{f on l} w_f / c_l, computed here independently.
    const std::vector<double> weight = link_loads(in, in.sizes);
    double W = 0;
    for (size_t l = 0; l < weight.size(); ++l) W = std::max(W, weight[l] / in.caps[l]);
    EXPECT_NEAR(r.max_link_weight, W, 1e-12 * W);
    // Feasible: no link over its capacity.
    const std::vector<double> load = link_loads(in, in.rates);
    for (size_t l = 0; l < load.size(); ++l) EXPECT_LE(load[l], in.caps[l] * (1 + 1e-12)) << "link " << l;
    EXPECT_LE(r.max_link_util, 1 + 1e-12);
    // Every flow finishes by W, and the last exactly at W (the lower bound): optimal.
    double last = 0;
    for (size_t f = 0; f < in.paths.size(); ++f) last = std::max(last, in.sizes[f] / in.rates[f]);
    EXPECT_NEAR(last, W, 1e-12 * W);
    EXPECT_NEAR(r.completion, W, 1e-12 * W);
  }
}

// Brute force: raise every unfrozen flow by `step` while all its links have room; a flow whose
// link has no room for another step stops. Independent of the water-filling code's round logic.
std::vector<double> brute_force_maxmin(const Instance& in, double step) {
  const size_t F = in.paths.size();
  std::vector<double> rate(F, 0.0);
  std::vector<bool> frozen(F, false);
  std::vector<double> used(in.caps.size(), 0.0);
  for (size_t left = F; left > 0;) {
    std::vector<int> users(in.caps.size(), 0);
    for (size_t f = 0; f < F; ++f)
      if (!frozen[f])
        for (int64_t l : in.paths[f]) ++users[l];
    for (size_t f = 0; f < F; ++f) {
      if (frozen[f]) continue;
      for (int64_t l : in.paths[f])
        if (used[l] + users[l] * step > in.caps[l] + 1e-15) {
          frozen[f] = true;
          --left;
          break;
        }
    }
    for (size_t f = 0; f < F; ++f)
      if (!frozen[f]) {
        rate[f] += step;
        for (int64_t l : in.paths[f]) used[l] += step;
      }
  }
  return rate;
}

TEST(FluidMaxmin, MatchesBruteForceFillingOnTinyInstances) {
  std::mt19937_64 rng(777);
  for (int rep = 0; rep < 60; ++rep) {
    Instance in = random_instance(rng, 1 + rep % 5, 2 + rep % 4, 3, rep % 2 == 1, false);
    maxmin_rates(in);
    const double step = 1e-4;
    const std::vector<double> brute = brute_force_maxmin(in, step);
    for (size_t f = 0; f < in.paths.size(); ++f) EXPECT_NEAR(in.rates[f], brute[f], 2e-3) << "rep " << rep << " flow " << f;
  }
}

TEST(FluidMaxmin, FeasibleAndEveryFlowHasABottleneck) {
  std::mt19937_64 rng(99);
  for (int rep = 0; rep < 200; ++rep) {
    Instance in = random_instance(rng, 1 + rep % 30, 2 + rep % 12, 5, rep % 2 == 0, rep % 3 == 0);
    const MaxminResult r = maxmin_rates(in);
    const std::vector<double> load = link_loads(in, in.rates);
    for (size_t l = 0; l < load.size(); ++l) EXPECT_LE(load[l], in.caps[l] * (1 + 1e-9));
    // Max-min fairness: each flow crosses a saturated link on which no flow has a higher rate.
    for (size_t f = 0; f < in.paths.size(); ++f) {
      bool bottleneck = false;
      for (int64_t l : in.paths[f]) {
        if (load[l] < in.caps[l] * (1 - 1e-9)) continue;
        bool highest = true;
        for (size_t g = 0; g < in.paths.size(); ++g)
          if (std::find(in.paths[g].begin(), in.paths[g].end(), l) != in.paths[g].end() && in.rates[g] > in.rates[f] * (1 + 1e-9))
            highest = false;
        bottleneck = bottleneck || highest;
      }
      EXPECT_TRUE(bottleneck) << "rep " << rep << " flow " << f;
    }
    double last = 0;
    for (size_t f = 0; f < in.paths.size(); ++f) last = std::max(last, in.sizes[f] / in.rates[f]);
    EXPECT_DOUBLE_EQ(r.completion, last);
  }
}

// With equal sizes and unit capacities the busiest link's flows all get 1/W under max-min too.
TEST(FluidMaxmin, EqualSizesUnitLinksFinishAtW) {
  Instance in;
  in.caps.assign(4, 1.0);
  in.paths = {{0, 1}, {0, 2}, {0, 3}, {1, 3}, {2}};
  in.sizes.assign(5, 1.0);
  in.size_scratch();
  const MaxminResult r = maxmin_rates(in);
  EXPECT_DOUBLE_EQ(in.rates[0], 1.0 / 3);
  EXPECT_DOUBLE_EQ(in.rates[3], 2.0 / 3);  // link 1: 1 - 1/3 left for the one remaining flow
  EXPECT_DOUBLE_EQ(in.rates[4], 2.0 / 3);  // link 2: likewise
  EXPECT_DOUBLE_EQ(r.completion, 3.0);
}

}  // namespace
}  // namespace saturn
