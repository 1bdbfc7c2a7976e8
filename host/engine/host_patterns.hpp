// Destination patterns built on the host into the engine's existing per-trial inputs (PAPERS-SPEC
// M41): dragonfly worst case WCn / WC-Hot n (001), the timed hot spots H10/H25 of 003, and the
// complement permutation (Dally & Towles' bit complement, the classic adversary of a tree's root).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host/config/config.hpp"

namespace saturn {

struct ModelSetup;

enum class HostPattern : uint8_t { kNone = 0, kWorstCase, kHotspotWindow, kComplement };

// complement runs as one fixed permutation in the engine's per-source destination rows
// (TrafficPattern::kPermutation, width 1): row e holds N - 1 - e in every trial, open-loop
// messages or a phase (traffic.phase_bytes). On a k-ary n-tree every packet crosses a root switch
// (the top digits of e and N - 1 - e always differ); with N odd the middle endpoint sends to itself.
// worst_case runs as the engine's per-source destination rows (TrafficPattern::kPermutation,
// model.permutations = row width): row e lists the nodes of group (group(e) + offset) mod g, or
// the trial's wc_hot_nodes nodes of it; each message picks one uniformly.
// hotspot_window runs as open-loop uniform traffic (every node but the hot sources; or, with
// hotspot_background = "victims", destination rows among the victims) plus, per hot
// source, one paced flow to each hot spot at rate / hot spots, alive in [start, stop): the
// engine's explicit-flow machinery gives the timing, so no pattern switch inside a step is needed.
struct HostPatternSpec {
  HostPattern kind = HostPattern::kNone;
  // worst_case
  int wc_offset = 1;
  int wc_hot_nodes = 0;       // 0 = the whole target group
  int group_endpoints = 0;    // endpoints per dragonfly group
  // hotspot_window
  std::vector<uint32_t> hot_nodes;
  int hot_sources = 0;        // drawn per trial among the endpoints that are not hot spots
  uint32_t start_cycle = 0;
  uint32_t stop_cycle = 0;    // kUnlimited = never
  uint32_t gap_q16 = 1u << 16;  // each flow's pacing: 65536 / (rate / hot spots)
  // hotspot_background = "victims": the background runs as per-source rows (kPermutation) that
  // list the other victims; hot spots are idle too.
  bool victims_only = false;
};

// Reads and checks the worst_case / hotspot_window keys (one ConfigError line naming the key) and
// sets the engine pattern they run as. Called by build_model after the topology and the cycle
// length are known.
void setup_host_pattern(const Config& cfg, ModelSetup& s);

}  // namespace saturn
