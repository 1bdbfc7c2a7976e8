// Whole-study memory, checked after the shapes are known and before any routing table is built:
// every shape's tables, one trial of engine state, every trial's results. One ConfigError line.
#pragma once
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"
#include "host/study/study.hpp"
#include "host/flow/flow_engine.hpp"

namespace saturn {

// The sweep's points, each a full copy of the config: checked before the sweep is expanded.
void check_sweep_memory(const Config& config, const StudyOptions& options);

// Packet engine. Returns the bytes left for engine state once tables and results are counted
// (the batch budget on the CPU backend; unlimited on CUDA, whose engine state is on the device).
size_t check_packet_study_memory(const Config& config, const std::vector<SweepPoint>& points,
                                 const std::vector<std::vector<int>>& groups, const std::vector<ModelSetup>& setups,
                                 const StudyOptions& options);

// Flow engine: every point's topology, the scratch of the trials in flight, every trial's results.
void check_flow_study_memory(const Config& config, const std::vector<SweepPoint>& points,
                             const std::vector<FlowSetup>& setups, const StudyOptions& options);

}  // namespace saturn
