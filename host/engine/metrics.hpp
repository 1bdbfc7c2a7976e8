// Per-trial metrics from two counter snapshots (start and end of the measurement window).
#pragma once
#include <vector>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/stats/summary.hpp"

namespace saturn {

// Metrics of trial t (index within the batch). Windowed metrics use [start, end] (warm-up to
// the window's end, or to the run's end if that came first); completion times use `final`.
// Latencies and times in ns, rates and utilizations as fractions of link bandwidth.
std::vector<MetricValue> trial_metrics(const ModelSetup& setup, const EngineSpec& spec, const Counters& start,
                                       const Counters& end, const Counters& final, int t);

// Percentile (0..1) of a histogram over latency bins, linearly interpolated inside the bin; NaN if empty.
double histogram_percentile(const std::vector<uint64_t>& bins, double q);

// Flits a trial still has to deliver for its finite flows to complete (0 when done).
uint64_t flits_outstanding(const EngineSpec& spec, const std::vector<uint64_t>& delivered_flits, int t);

}  // namespace saturn
