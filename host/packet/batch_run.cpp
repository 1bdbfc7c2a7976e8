// A part of a packet batch run through its sample points (batch_run.hpp), and its saved state
// (batch_state.hpp): the engine's columns and the loop's host state below, so that a part stopped
// at cycle C and restored goes on exactly as if it had never stopped.
#include "host/packet/batch_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "host/config/config_error.hpp"
#include "host/engine/metrics.hpp"
#include "host/engine/omp_team.hpp"
#include "host/io/state_dump.hpp"
#include "host/packet/batch_state.hpp"
#include "kernels/cc/saa_probes.hpp"
#include "kernels/common/index.hpp"
#include "kernels/routing/route_setup.hpp"

namespace saturn {

namespace {

// injection.rates = saa_probes: whether every flow of trial t that announced itself has its
// AnnounceEnd back (act_saa_state, kernels/cc/saa_probes.hpp); true when the model has no probes.
bool saa_settled(const std::vector<uint8_t>& saa_state, int t, int T) {
  for (size_t i = static_cast<size_t>(t); i < saa_state.size(); i += static_cast<size_t>(T))
    if ((saa_state[i] & kSaaStarted) != 0 && (saa_state[i] & kSaaDone) == 0) return false;
  return true;
}

// routing.route_setup = packets: whether every connection of trial t is torn down (no send queue
// owns one: kernels/routing/route_setup.hpp); true when the model sets routes up on the host.
bool routes_closed(const std::vector<uint8_t>& route_state, int t, int T) {
  for (size_t i = static_cast<size_t>(t); i < route_state.size(); i += static_cast<size_t>(T))
    if ((route_state[i] & kRtOwner) != 0) return false;
  return true;
}

// One time-series interval for every trial of a batch still running: the windowed metrics of
// [prev, now]. A trial that is done has no more samples, however long its batch goes on.
void append_series(const ModelSetup& setup, const EngineSpec& spec, const std::vector<TrialSpec>& trials,
                   const std::vector<uint8_t>& done, const Counters& prev, const Counters& now,
                   std::vector<SeriesSample>& out) {
  for (int t = 0; t < spec.model.trials; ++t) {
    if (done[t]) continue;
    SeriesSample sample{trials[t].point, trials[t].trial, now.cycle * setup.cycle_ns, {}};
    for (MetricValue& m : trial_metrics(setup, spec, prev, now, now, t)) {
      // Whole-run quantities are not rates over an interval.
      const std::string& n = m.name;
      if (n == "completion_time_ns" || n == "packets_in_flight" || n == "invariant_violations" ||
          n == "packets_out_of_order" || n.rfind("flow_done_ns[", 0) == 0 || n.rfind("execution_time_", 0) == 0 ||
          n == "trace_unfinished_nodes" || n.rfind("node_finish_ns[", 0) == 0)
        continue;
      sample.metrics.push_back(std::move(m));
    }
    out.push_back(std::move(sample));
  }
}

// switch.packet_descriptors: a port that found no free packet entry lost that packet, so its
// trial's results are wrong. The run stops at the sample that sees it, with the key to raise; with
// no limit below the buffers' own, only an engine bug could lose one.
void check_descriptors(const Engine& engine, const ModelSetup& setup, const std::vector<TrialSpec>& trials,
                       int real) {
  const std::vector<uint64_t> lost = engine.read_no_descriptor();
  for (int t = 0; t < real; ++t) {
    if (lost[t] == 0) continue;
    char at_ns[32];
    std::snprintf(at_ns, sizeof at_ns, "%.0f", engine.cycle() * setup.cycle_ns);
    const std::string where = " by " + std::string(at_ns) + " ns in trial " + std::to_string(trials[t].trial) +
                              " of sweep point " + std::to_string(trials[t].point) + " (" + std::to_string(lost[t]) +
                              (lost[t] == 1 ? " arrival" : " arrivals") + " found none)";
    if (setup.packet_descriptors > 0 && setup.packet_descriptors < setup.buffer_packets)
      throw ConfigError(setup.config_source + ": key 'switch.packet_descriptors': " +
                        std::to_string(setup.packet_descriptors) + " per input port ran out" + where +
                        "; the buffers hold up to " + std::to_string(setup.buffer_packets) +
                        " packets: raise it (0 = that many)");
    throw std::logic_error("an input port found no free packet entry although its buffers had room" + where +
                           " (an engine bug)");
  }
}

// Deadlock watch: a trial that has packets in flight and delivers nothing for kStallCycles is
// reported as deadlocked (credit loops on cyclic routes never drain; a congested but live network
// always delivers something). Checked at sample points from two cheap counter columns.
constexpr uint32_t kStallCycles = 100000;

class StallWatch {
 public:
  explicit StallWatch(int trials)
      : last_delivered_(trials, 0), quiet_since_(trials, 0), stalled_(trials, 0), done_(trials, 0) {}

  // Returns true when every trial is finished (finite flows) or stalled. Trials that became so
  // at this sample point are listed by newly_done(): sample points depend only on the setup, so
  // that point is the same whichever batch a trial runs in.
  bool update(const Engine& engine, const ModelSetup& setup, const EngineSpec& spec, bool finite) {
    const std::vector<uint64_t> delivered = engine.read_delivered_flits();
    const std::vector<uint64_t> injected = engine.read_injected_flits();
    const std::vector<uint32_t> trace_done = setup.trace ? engine.read_trace_done() : std::vector<uint32_t>();
    // SAA by control packets: a finite trial also waits for its flows' AnnounceEnds to come back
    // (the registers are then all 0 again; completion_time_ns is still the data's)
    const std::vector<uint8_t> saa = spec.model.cc.saa_probes ? engine.read_saa_state() : std::vector<uint8_t>();
    // Route setup packets: and for every teardown to come back (route_state_left is then 0)
    const std::vector<uint8_t> route = spec.model.cc.route_setup ? engine.read_route_state() : std::vector<uint8_t>();
    const int T = spec.model.trials, N = spec.topology->num_endpoints;
    bool all_done = true;
    newly_done_.clear();
    for (int t = 0; t < T; ++t) {
      uint64_t del = 0, inj = 0;
      for (int e = 0; e < N; ++e) {
        del += delivered[at(e, t, T)];
        inj += injected[at(e, t, T)];
      }
      if (del != last_delivered_[t] || inj == del) {
        last_delivered_[t] = del;
        quiet_since_[t] = engine.cycle();
      }
      stalled_[t] = engine.cycle() - quiet_since_[t] >= kStallCycles ? 1 : 0;
      // A trace is done when every node has completed its events (its streams may still run).
      const bool finished = finite &&
                            (setup.trace ? trace_finished(setup, trace_done, t, T)
                                         : flits_outstanding(spec, delivered, t) == 0 && saa_settled(saa, t, T) &&
                                               routes_closed(route, t, T));
      if ((finished || stalled_[t]) && !done_[t]) {
        done_[t] = 1;
        newly_done_.push_back(t);
      }
      all_done = all_done && (finished || stalled_[t]);
    }
    return all_done;
  }
  bool stalled(int t) const { return stalled_[t] != 0; }
  const std::vector<int>& newly_done() const { return newly_done_; }

  void save(BinaryWriter& out) const {
    out.put_vector(last_delivered_);
    out.put_vector(quiet_since_);
    out.put_vector(stalled_);
    out.put_vector(done_);
  }
  void load(BinaryReader& in) {
    last_delivered_ = in.get_vector<uint64_t>();
    quiet_since_ = in.get_vector<uint32_t>();
    stalled_ = in.get_vector<uint8_t>();
    done_ = in.get_vector<uint8_t>();
    const size_t T = done_.size();
    if (last_delivered_.size() != T || quiet_since_.size() != T || stalled_.size() != T)
      in.fail("holds a stall watch of another batch");
  }

 private:
  std::vector<uint64_t> last_delivered_;
  std::vector<uint32_t> quiet_since_;
  std::vector<uint8_t> stalled_, done_;
  std::vector<int> newly_done_;
};


// The loop's host state: with the engine's columns, all a part needs to go on from a cycle.
struct BatchLoop {
  bool started = false, closed = false;  // the window's start and end counters are taken
  Counters start, window_end;            // at the window's start and end
  Counters series_prev;                  // at the last series sample point
  uint32_t series_next = 0;              // the next series sample point
  uint64_t dump_next = 0;                // the next of setup.dump_cycles
  uint32_t cut_at_next = 0;              // a stop inside a sample: that sample's point (0: none)
  std::vector<TrialResult> results;      // [t] of the trials finished so far
  std::vector<uint8_t> finished;         // [t] 1 once reported (padding: from the start)
  std::vector<SeriesSample> series;      // the samples so far
};

// Writes the part's state to PATH.tmp, then renames it over PATH: a file at PATH is always whole.
// A failure (a full disk) is reported and the run goes on: saving is a safeguard, not the work.
void save_part(const BatchSaving& saving, const BatchStateHeader& header, const Engine& engine,
               const BatchLoop& loop, const StallWatch& watch) {
  const std::string tmp = saving.path + ".tmp";
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(saving.path).parent_path(), ec);
  bool ok = false;
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    BinaryWriter out(os);
    put_header(out, header);
    engine.save_state(out);
    out.put<uint8_t>(loop.started);
    out.put<uint8_t>(loop.closed);
    put_counters(out, loop.start);
    put_counters(out, loop.window_end);
    put_counters(out, loop.series_prev);
    out.put(loop.series_next);
    out.put(loop.dump_next);
    out.put(loop.cut_at_next);
    watch.save(out);
    put_results(out, loop.results);
    out.put_vector(loop.finished);
    put_series(out, loop.series);
    out.put(kBatchStateEnd);
    os.flush();
    ok = out.ok() && static_cast<bool>(os);
  }
  if (ok) std::filesystem::rename(tmp, saving.path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    std::cerr << "saturn: could not save the batch state to " << saving.path
              << " (disk full?); the run goes on, and a stop loses this batch\n";
  }
}

// Puts the engine and the loop where the file at saving.path left them; it must be this part's.
void restore_part(const BatchSaving& saving, const BatchStateHeader& want, Engine& engine, BatchLoop& loop,
                  StallWatch& watch) {
  BatchStateFile file = open_batch_state(saving.path);
  BinaryReader& in = *file.reader;
  const BatchStateHeader& h = file.header;
  bool same = state_of_this_run(h.config_hash, want.config_hash, saving.earlier_hash) && h.padding == want.padding &&
              h.trials.size() == want.trials.size();
  for (size_t i = 0; same && i < h.trials.size(); ++i)
    same = h.trials[i].point == want.trials[i].point && h.trials[i].trial == want.trials[i].trial &&
           h.trials[i].seed == want.trials[i].seed;
  if (!same) in.fail("is not the state of this part");
  engine.load_state(in, h.version < 4);  // format 3: columns written whole
  loop.started = in.get<uint8_t>() != 0;
  loop.closed = in.get<uint8_t>() != 0;
  loop.start = get_counters(in);
  loop.window_end = get_counters(in);
  loop.series_prev = get_counters(in);
  loop.series_next = in.get<uint32_t>();
  loop.dump_next = in.get<uint64_t>();
  loop.cut_at_next = h.version >= 4 ? in.get<uint32_t>() : 0;
  watch.load(in);
  loop.results = get_results(in);
  loop.finished = in.get_vector<uint8_t>();
  loop.series = get_series(in);
  if (in.left() != sizeof(uint64_t) || in.get<uint64_t>() != kBatchStateEnd) in.fail("cut short or overlong");
  const size_t T = want.trials.size();
  if (loop.results.size() != T || loop.finished.size() != T) in.fail("holds the loop of another batch");
}

}  // namespace

BatchResult run_batch(const BatchRun& batch, const StudyOptions& options, int threads, WorkTally& tally,
                      const BatchSaving& saving) {
  BatchResult out;
  // The parts of a batch run `threads` at a time, so a stop can find parts not yet begun. Beginning
  // one would cost its state's allocation, a sample's cycles and a saved state, for nothing: Jiang
  // Fig. 12's 12 parts of 200 MB took 136 s to stop. (A restored part's file stays for --resume.)
  if (options.stop != nullptr && options.stop->load()) {
    out.began = false;
    out.stopped = true;
    return out;
  }
  const OmpTeam team(threads);  // the engine's allocations and counter reductions use these threads too
  LaunchOptions launch;
  launch.threads = threads;
  const ModelSetup& setup = *batch.setup;
  launch.check_invariants = setup.check_invariants;
  const EngineSpec spec = build_engine_spec(setup, batch.trials);
  Engine engine(spec);
  const int real = spec.model.trials - static_cast<int>(batch.padding);  // the trials reported
  BatchInfo info;
  info.trials = real;
  info.padding_trials = static_cast<int>(batch.padding);
  info.bytes_per_trial = setup.bytes_per_trial();
  info.split_mode = cpu_split_mode(spec.model.trials, threads, setup.topology.num_switches());
  for (int t = 0; t < real; ++t)
    if (info.points.empty() || info.points.back() != batch.trials[t].point) info.points.push_back(batch.trials[t].point);

  // Snapshots at the window's start and end; finite flows may run on past the window.
  const uint32_t total = setup.total_cycles(), warm = setup.warmup_cycles, wend = setup.window_end();
  StallWatch watch(spec.model.trials);
  BatchLoop loop;
  loop.started = warm == 0;
  // Trial t's metrics from the counters `now` at its own end: the window closes at the window's
  // end or at the trial's completion, whichever came first.
  loop.results.resize(spec.model.trials);
  loop.finished.assign(spec.model.trials, 0);
  std::fill(loop.finished.begin() + real, loop.finished.end(), 1);  // padding: no series, no metrics
  auto finish_trial = [&](int t, const Counters& now) {
    const TrialSpec& ts = batch.trials[t];
    const Counters& from = loop.started ? loop.start : now;  // done during warm-up: an empty window
    const Counters& to = loop.closed ? loop.window_end : now;
    const int64_t own_end = loop.closed ? wend : std::min<int64_t>(wend, trial_end_cycle(setup, spec, now, t));
    loop.results[t] = TrialResult{ts.point, ts.trial, ts.seed, trial_metrics(setup, spec, from, to, now, t, own_end)};
    loop.results[t].metrics.push_back({"deadlocked", watch.stalled(t) ? 1.0 : 0.0});
    loop.finished[t] = 1;
  };
  // stats.state_dump_ns: the run stops at each dump time (advance is the same in any chunks).
  const bool dumping = !options.state_dir.empty() && !setup.dump_cycles.empty();
  auto dump_if_due = [&] {
    if (!dumping || loop.dump_next >= setup.dump_cycles.size() || engine.cycle() != setup.dump_cycles[loop.dump_next])
      return;
    ++loop.dump_next;
    bool wanted = false;
    for (int t = 0; t < real; ++t) wanted = wanted || batch.trials[t].trial == setup.dump_trial;
    if (!wanted) return;
    const StateSnapshot snap = engine.snapshot();
    for (int t = 0; t < real; ++t)
      if (batch.trials[t].trial == setup.dump_trial)
        write_state_dump(snap, static_cast<int>(t), setup.topology,
                         state_dump_prefix(options.state_dir, batch.trials[t].point, batch.trials[t].trial,
                                           engine.cycle() * setup.cycle_ns));
  };
  const BatchStateHeader header{saving.config_hash, saving.batch_id, saving.part, batch.trials, batch.padding, 0};
  const auto save = [&] {
    if (saving.path.empty()) return;
    BatchStateHeader h = header;
    h.cycle = engine.cycle();
    save_part(saving, h, engine, loop, watch);
  };
  if (saving.restore) {
    restore_part(saving, header, engine, loop, watch);
  } else {
    if (loop.started) loop.start = engine.read_counters();
    loop.series_next = setup.series_cycles;
    if (setup.series_cycles > 0) loop.series_prev = engine.read_counters();
    dump_if_due();
  }
  const uint32_t restored = engine.cycle();  // a restored part: cycles an earlier run simulated (the
                                            // study counted them done: EngineBatch::restored_work)
  uint32_t reported = engine.cycle();
  auto last_save = std::chrono::steady_clock::now();
  bool stopped = false;
  const auto stop_requested = [&] { return options.stop != nullptr && options.stop->load(); };
  while (engine.cycle() < total) {
    uint32_t next = std::min(total, engine.cycle() + setup.sample_cycles);
    if (!loop.started) next = std::min(next, warm);
    if (!loop.closed) next = std::min(next, wend);
    if (setup.series_cycles > 0) next = std::min(next, loop.series_next);
    if (dumping && loop.dump_next < setup.dump_cycles.size())
      next = std::min(next, setup.dump_cycles[loop.dump_next]);
    // A part restored from a stop inside a sample goes on to that sample's point: the sample points,
    // where finite trials are measured and stalls seen, are the uninterrupted run's.
    if (loop.cut_at_next > engine.cycle()) next = loop.cut_at_next;
    loop.cut_at_next = 0;
    // The sample in eighths of at least 64 cycles (advance gives the same bits in any pieces), so
    // that a stop waits for an eighth of a sample at most (a 16-trial pack of the 1056-node
    // dragonfly took 40 s a sample) and the progress moves within a long sample.
    const uint32_t piece = std::max<uint32_t>(64, (next - engine.cycle() + 7) / 8);
    for (bool first = true; engine.cycle() < next; first = false) {
      if (!first && stop_requested()) break;
      engine.advance(std::min(piece, next - engine.cycle()), launch);
      if (engine.cycle() < next) {
        tally.add(static_cast<double>(engine.cycle() - reported) * real);
        reported = engine.cycle();
      }
    }
    if (engine.cycle() < next) {  // stopped inside the sample
      loop.cut_at_next = next;
      stopped = true;
      save();
      break;
    }
    check_descriptors(engine, setup, batch.trials, real);
    dump_if_due();
    if (setup.series_cycles > 0 && engine.cycle() == loop.series_next) {
      const Counters now = engine.read_counters();
      append_series(setup, spec, batch.trials, loop.finished, loop.series_prev, now, loop.series);
      loop.series_prev = now;
      loop.series_next += setup.series_cycles;
    }
    if (!loop.started && engine.cycle() == warm) {
      loop.start = engine.read_counters();
      loop.started = true;
    }
    if (!loop.closed && engine.cycle() == wend) {
      loop.window_end = engine.read_counters();
      loop.closed = true;
    }
    tally.add(static_cast<double>(engine.cycle() - reported) * real);
    reported = engine.cycle();
    const bool all_done = watch.update(engine, setup, spec, setup.finite);
    if (setup.finite && !watch.newly_done().empty()) {
      // A finite trial is measured when it is done, not when its batch is: the batch's length
      // depends on which other trials share it (thread count, shards, memory).
      const Counters now = engine.read_counters();
      for (int t : watch.newly_done())
        if (t < real) finish_trial(t, now);
    }
    if (all_done && (setup.finite || loop.closed)) break;
    if (!setup.finite && loop.closed) break;
    if (stop_requested()) {
      stopped = true;
      save();
      break;
    }
    if (saving.every_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - last_save).count() >= saving.every_seconds) {
      save();
      last_save = std::chrono::steady_clock::now();
    }
  }
  const Counters end = engine.read_counters();
  int deadlocked = 0;
  for (int t = 0; t < real; ++t) {
    if (!loop.finished[t]) {
      if (stopped) out.unfinished.push_back({batch.trials[t].point, batch.trials[t].trial});
      finish_trial(t, end);
    }
    deadlocked += loop.results[t].metrics.back().value != 0 ? 1 : 0;
    out.trials.push_back(std::move(loop.results[t]));
  }
  out.series = std::move(loop.series);
  if (deadlocked > 0)
    std::cerr << "saturn: " << deadlocked << " of " << real << " trials delivered nothing for "
              << kStallCycles << " cycles with packets in flight (deadlock: see the 'deadlocked' metric)\n";
  info.cycles = engine.cycle() - restored;  // this run's own: "N cycles in S s" is this run's speed
  out.info = info;
  out.stopped = stopped;
  tally.add(static_cast<double>(total - engine.cycle()) * real);  // the rest counts as done
  return out;
}

}  // namespace saturn
