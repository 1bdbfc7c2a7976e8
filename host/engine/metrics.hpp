// Per-trial metrics from two counter snapshots (start and end of the measurement window).
#pragma once
#include <vector>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/stats/summary.hpp"

namespace saturn {

// Metrics of trial t (index within the batch). Windowed counts are end - start; rates divide
// them by the window [start.cycle, window_end_cycle) (end.cycle by default). A finite trial's
// window ends at its own completion (see trial_end_cycle), so its rates do not depend on how long
// the other trials of its batch ran. Completion times use `final`.
// Latencies and times in ns, rates and utilizations as fractions of link bandwidth.
std::vector<MetricValue> trial_metrics(const ModelSetup& setup, const EngineSpec& spec, const Counters& start,
                                       const Counters& end, const Counters& final, int t,
                                       int64_t window_end_cycle = -1);

// The cycle after the last flit of trial t's finite flows arrived (max st_flow_done + 1), or
// c.cycle when the trial has no finite flows or some are unfinished.
uint32_t trial_end_cycle(const ModelSetup& setup, const EngineSpec& spec, const Counters& c, int t);

// Busy cycles of output i (= at(gp, t)) up to c.cycle: the counter less the part of the packet in
// flight that is still to be sent (counted when the packet started). Utilization over a window is
// the difference of two of these; consecutive windows add up to the whole.
uint64_t link_busy_sent(const Counters& c, int64_t i);

// Trace replay: whether every node of trial t has completed all its events (done: [at(e, t, T)]
// events completed, Counters::trace_done or Engine::read_trace_done), and the cycle the last
// event of trial t completed (the execution time, when finished).
bool trace_finished(const ModelSetup& setup, const std::vector<uint32_t>& done, int t, int T);
uint32_t trace_execution_cycles(const Counters& c, int t, int N);

// Percentile (0..1) of a histogram over latency bins, linearly interpolated inside the bin; NaN if empty.
double histogram_percentile(const std::vector<uint64_t>& bins, double q);

// Flits a trial still has to deliver for its finite flows to complete (0 when done).
uint64_t flits_outstanding(const EngineSpec& spec, const std::vector<uint64_t>& delivered_flits, int t);

}  // namespace saturn
