// Per-trial inputs of a batch, drawn on the host from each trial's own Philox stream:
// permutations, hot-spot roles and destinations, phase flows, explicit flows, load thresholds.
#include <algorithm>
#include <cmath>

#include "host/engine/injection_rates.hpp"
#include "host/engine/model_setup.hpp"
#include <limits>

#include "kernels/common/fastmath.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/traffic/destination.hpp"

namespace saturn {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Sequential draws from a trial's set-up stream (counter = draw number, lane = what for).
class SetupStream {
 public:
  SetupStream(uint64_t seed, uint32_t lane) : seed_(seed), lane_(lane) {}
  uint32_t below(uint32_t n) {
    const Draw4 d = philox(seed_, lane_, counter_++, 0u, Stream::kSetup);
    return uniform_below(d.v[0], n);
  }
 private:
  uint64_t seed_;
  uint32_t lane_;
  uint32_t counter_ = 0;
};

std::vector<uint32_t> shuffled(int n, SetupStream& rng) {
  std::vector<uint32_t> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<uint32_t>(i);
  for (int i = n - 1; i > 0; --i) std::swap(v[i], v[rng.below(static_cast<uint32_t>(i + 1))]);
  return v;
}

// ln(1 - p) for the geometric gaps between messages; 0 means "never", -inf "every cycle".
double log1m(double p) {
  if (p <= 0) return 0.0;
  if (p >= 1) return -std::numeric_limits<double>::infinity();
  return std::log1p(-p);
}


// worst_case (001 WCn, WC-Hot n): row e = the nodes of group (group(e) + offset) mod g, or the
// trial's wc_hot_nodes nodes of that group (the same for every source of a group; drawn per
// trial and target group from the set-up stream), in dest_table[at(e * width + j, t)].
void fill_worst_case(const ModelSetup& setup, const std::vector<TrialSpec>& trials, EngineSpec& spec) {
  const HostPatternSpec& hp = setup.host_pattern;
  const int T = static_cast<int>(trials.size());
  const int N = setup.topology.num_endpoints;
  const int per_group = hp.group_endpoints, groups = N / per_group;
  const int width = setup.model.permutations;
  spec.dest_table.assign(static_cast<size_t>(N) * width * T, 0);
  for (int t = 0; t < T; ++t) {
    SetupStream rng(trials[t].seed, kSetupLaneHotspot);
    std::vector<std::vector<uint32_t>> chosen(groups);  // per target group: its first `width` of a shuffle
    for (int g = 0; g < groups; ++g) {
      chosen[g] = hp.wc_hot_nodes > 0 ? shuffled(per_group, rng) : std::vector<uint32_t>();
      if (chosen[g].empty())
        for (int j = 0; j < per_group; ++j) chosen[g].push_back(static_cast<uint32_t>(j));
    }
    for (int e = 0; e < N; ++e) {
      const int target = (e / per_group + hp.wc_offset) % groups;
      for (int j = 0; j < width; ++j)
        spec.dest_table[at(static_cast<int64_t>(e) * width + j, t, T)] =
            static_cast<uint32_t>(target * per_group) + chosen[target][j];
    }
  }
}

// hotspot_window (003 H10/H25, one or four hot spots): per trial, hot_sources endpoints drawn
// among the non-hot ones stop sending open-loop messages (role idle) and instead keep one paced
// flow to each hot spot alive in [start, stop); every other endpoint, the hot spots included,
// sends uniform open-loop traffic for the whole run; with victims_only the hot spots are idle and
// each victim's row lists the other victims. Flow (e, j) = e * M + j; dst = kUnlimited where e is
// not a hot source in that trial.
void fill_hotspot_window(const ModelSetup& setup, const std::vector<TrialSpec>& trials, EngineSpec& spec) {
  const HostPatternSpec& hp = setup.host_pattern;
  const int T = static_cast<int>(trials.size());
  const int N = setup.topology.num_endpoints;
  const int M = static_cast<int>(hp.hot_nodes.size());
  FlowPlan& plan = spec.flows;
  plan.flows_per_source = M;
  plan.index.resize(static_cast<size_t>(N) * M);
  for (int f = 0; f < N * M; ++f) plan.index[f] = f;
  plan.dst.assign(static_cast<size_t>(N) * M * T, kUnlimited);
  plan.flits.assign(static_cast<size_t>(N) * M, kUnlimited);
  plan.start.assign(static_cast<size_t>(N) * M, hp.start_cycle);
  plan.stop.assign(static_cast<size_t>(N) * M, hp.stop_cycle);
  plan.gap_q16.assign(static_cast<size_t>(N) * M, hp.gap_q16);
  plan.vc.assign(static_cast<size_t>(N) * M, static_cast<uint8_t>(setup.model.data_vc));
  plan.dynamic.assign(static_cast<size_t>(N) * M, 0);
  const int width = setup.model.permutations;  // victims_only: victims - 1
  if (hp.victims_only) spec.dest_table.assign(static_cast<size_t>(N) * width * T, 0);
  for (int t = 0; t < T; ++t) {
    // The trial's own hot spots and hot-source count (per-trial keys; as many hot spots as the batch's).
    const HostPatternSpec& own = setup.host_pattern_of(trials[t].point);
    std::vector<bool> hot(N, false);
    for (uint32_t h : own.hot_nodes) hot[h] = true;
    SetupStream rng(trials[t].seed, kSetupLaneHotspot);
    int taken = 0;
    for (uint32_t e : shuffled(N, rng)) {
      if (taken == own.hot_sources) break;
      if (hot[e]) continue;
      ++taken;
      spec.role[at(e, t, T)] = kRoleIdle;
      for (int j = 0; j < M; ++j) plan.dst[at(static_cast<int64_t>(e) * M + j, t, T)] = own.hot_nodes[j];
    }
    if (!hp.victims_only) continue;
    std::vector<uint32_t> victims;
    for (int e = 0; e < N; ++e) {
      if (hot[e]) spec.role[at(e, t, T)] = kRoleIdle;
      else if (spec.role[at(e, t, T)] == kRoleMain) victims.push_back(static_cast<uint32_t>(e));
    }
    for (uint32_t e : victims) {
      int j = 0;
      for (uint32_t d : victims)
        if (d != e) spec.dest_table[at(static_cast<int64_t>(e) * width + j++, t, T)] = d;
    }
  }
}

}  // namespace

uint64_t trial_seed(uint64_t run_seed, int point, int trial) {
  return splitmix64(splitmix64(run_seed) ^ splitmix64((static_cast<uint64_t>(point) << 32) | static_cast<uint32_t>(trial)));
}

EngineSpec build_engine_spec(const ModelSetup& setup, const std::vector<TrialSpec>& trials) {
  EngineSpec spec;
  spec.topology = &setup.topology;
  spec.routes = &setup.routes;
  spec.model = setup.model;
  const int T = static_cast<int>(trials.size());
  const int N = setup.topology.num_endpoints;
  ModelParams& m = spec.model;
  m.trials = T;

  spec.seed.resize(T);
  spec.log1m_p_msg.resize(T);
  spec.log1m_p_background.resize(T);
  spec.output_threshold.resize(T);
  spec.lhrp_threshold_flits.resize(T);
  for (int t = 0; t < T; ++t) {
    spec.seed[t] = trials[t].seed;
    const ModelParams& own = setup.model_of(trials[t].point);  // its per-trial fields
    spec.output_threshold[t] = own.cc.output_threshold;
    spec.lhrp_threshold_flits[t] = own.cc.lhrp_params.last_hop_threshold_flits;
    spec.log1m_p_msg[t] = log1m(trials[t].load / setup.mean_message_flits);
    spec.log1m_p_background[t] = log1m(trials[t].background_load / setup.mean_message_flits);
  }

  // Roles and destination tables.
  spec.role.assign(static_cast<size_t>(N) * T, kRoleMain);
  spec.dest_width = setup.dest_width();
  const HostPatternSpec& hp = setup.host_pattern;
  if (hp.kind == HostPattern::kWorstCase) {
    fill_worst_case(setup, trials, spec);
  } else if (hp.kind == HostPattern::kComplement) {
    spec.dest_table.assign(static_cast<size_t>(N) * T, 0);  // row e: N - 1 - e, every trial
    for (int t = 0; t < T; ++t)
      for (int e = 0; e < N; ++e) spec.dest_table[at(e, t, T)] = static_cast<uint32_t>(N - 1 - e);
  } else if (hp.kind == HostPattern::kHotspotWindow) {
    // Roles and the victims' rows are drawn with the hot sources' flows below.
  } else if (m.pattern == TrafficPattern::kPermutation) {
    spec.dest_table.assign(static_cast<size_t>(N) * m.permutations * T, 0);
    for (int t = 0; t < T; ++t) {
      SetupStream rng(trials[t].seed, kSetupLanePermutation);
      for (int j = 0; j < m.permutations; ++j) {
        const std::vector<uint32_t> perm = shuffled(N, rng);  // self-mapping allowed (PAPERS-SPEC M41)
        for (int e = 0; e < N; ++e) spec.dest_table[at(static_cast<int64_t>(e) * m.permutations + j, t, T)] = perm[e];
      }
    }
  } else if (m.pattern == TrafficPattern::kHotspot) {
    spec.dest_table.assign(static_cast<size_t>(m.hot_destinations) * T, 0);
    for (int t = 0; t < T; ++t) {
      const int sources = setup.hotspot_sources_of(trials[t].point);
      SetupStream rng(trials[t].seed, kSetupLaneHotspot);
      const std::vector<uint32_t> order = shuffled(N, rng);  // first M destinations, next N sources
      for (int e = 0; e < N; ++e) spec.role[at(e, t, T)] = m.background_uniform ? kRoleBackground : kRoleIdle;
      for (int j = 0; j < m.hot_destinations; ++j) spec.dest_table[at(j, t, T)] = order[j];
      for (int j = 0; j < sources; ++j) spec.role[at(order[m.hot_destinations + j], t, T)] = kRoleMain;
    }
  } else if (m.pattern == TrafficPattern::kAllToOne) {
    for (int t = 0; t < T; ++t) spec.role[at(m.root, t, T)] = kRoleIdle;
  }

  // Flows: explicit ones (same for every trial), the hot sources' flows of hotspot_window, or one
  // phase flow per source and permutation.
  FlowPlan& plan = spec.flows;
  if (hp.kind == HostPattern::kHotspotWindow) {
    fill_hotspot_window(setup, trials, spec);
  } else if (!setup.flows.empty()) {
    std::vector<std::vector<int>> by_source(N);
    for (size_t f = 0; f < setup.flows.size(); ++f) by_source[setup.flows[f].src].push_back(static_cast<int>(f));
    for (auto& list : by_source)
      std::stable_sort(list.begin(), list.end(),
                       [&](int a, int b) { return setup.flows[a].start_ns < setup.flows[b].start_ns; });
    size_t width = 0;
    for (const auto& list : by_source) width = std::max(width, list.size());
    plan.flows_per_source = static_cast<int>(width);
    plan.index.assign(static_cast<size_t>(N) * width, -1);
    for (int e = 0; e < N; ++e)
      for (size_t j = 0; j < by_source[e].size(); ++j) plan.index[e * width + j] = by_source[e][j];
    const int F = static_cast<int>(setup.flows.size());
    plan.dst.assign(static_cast<size_t>(F) * T, 0);
    for (int f = 0; f < F; ++f) {
      const FlowSpec& fs = setup.flows[f];
      for (int t = 0; t < T; ++t) plan.dst[at(f, t, T)] = static_cast<uint32_t>(fs.dst);
      const double flits = std::ceil(static_cast<double>(fs.bytes) / setup.flit_bytes);
      plan.flits.push_back(fs.bytes > 0 ? static_cast<uint32_t>(flits) : kUnlimited);
      plan.start.push_back(static_cast<uint32_t>(std::llround(fs.start_ns / setup.cycle_ns)));
      plan.stop.push_back(fs.stop_ns > 0 ? static_cast<uint32_t>(std::llround(fs.stop_ns / setup.cycle_ns)) : kUnlimited);
      plan.gap_q16.push_back(static_cast<uint32_t>(std::llround(65536.0 / fs.rate)));
      plan.vc.push_back(static_cast<uint8_t>(fs.vc));
      plan.dynamic.push_back(fs.dynamic ? 1 : 0);
    }
  } else if (setup.phase_flits > 0) {
    // Phase: every active source sends `permutations` flows (permutation) or one flow, at t = 0.
    const int width = m.pattern == TrafficPattern::kPermutation ? m.permutations : 1;
    plan.flows_per_source = width;
    plan.index.assign(static_cast<size_t>(N) * width, -1);
    int F = 0;
    std::vector<int> source_of;
    for (int e = 0; e < N; ++e)
      for (int j = 0; j < width; ++j) {
        plan.index[static_cast<size_t>(e) * width + j] = F++;
        source_of.push_back(e);
      }
    plan.dst.assign(static_cast<size_t>(F) * T, 0);
    plan.flits.assign(F, setup.phase_flits);
    plan.start.assign(F, 0);
    plan.stop.assign(F, kUnlimited);
    plan.gap_q16.assign(F, 1u << 16);
    plan.vc.assign(F, static_cast<uint8_t>(m.data_vc));
    plan.dynamic.assign(F, 0);
    for (int t = 0; t < T; ++t) {
      SetupStream rng(trials[t].seed, kSetupLanePhase);
      for (int f = 0; f < F; ++f) {
        const int e = source_of[f];
        const uint8_t role = spec.role[at(e, t, T)];
        uint32_t dst;
        if (m.pattern == TrafficPattern::kPermutation) {
          dst = spec.dest_table[at(static_cast<int64_t>(e) * m.permutations + f % width, t, T)];
        } else if (role != kRoleMain) {
          dst = kUnlimited;  // not a source in this trial: no flow
        } else if (m.pattern == TrafficPattern::kHotspot) {
          dst = spec.dest_table[at(rng.below(static_cast<uint32_t>(m.hot_destinations)), t, T)];
        } else if (m.pattern == TrafficPattern::kAllToOne) {
          dst = static_cast<uint32_t>(m.root);
        } else {
          dst = uniform_destination(rng.below(0xFFFFFFFFu), e, N);
        }
        plan.dst[at(f, t, T)] = dst;
      }
    }
  }
  m.flows_per_source = plan.flows_per_source;
  spec.trace = setup.trace.get();
  fill_injection_rates(setup, spec);  // adaptive routes' setup, injection.rates, the schedulers' gaps

  // Each open-loop source's first message: the same geometric draw the kernels make after every
  // message, keyed by the cycle kUnlimited, which no later draw uses. Cycle = gap - 1 (from 0).
  if (m.open_loop) {
    spec.first_message.assign(static_cast<size_t>(N) * T, kUnlimited);
    for (int t = 0; t < T; ++t)
      for (int e = 0; e < N; ++e) {
        const uint8_t role = spec.role[at(e, t, T)];
        if (role == kRoleIdle) continue;
        const Draw4 d = philox(trials[t].seed, 0u, static_cast<uint32_t>(e), kUnlimited, Stream::kGenerate);
        const uint32_t gap = geometric_gap(d.v[0], role == kRoleMain ? spec.log1m_p_msg[t] : spec.log1m_p_background[t]);
        spec.first_message[at(e, t, T)] = gap == kUnlimited ? kUnlimited : gap - 1;
      }
  }
  return spec;
}

}  // namespace saturn
