// The saved batch state's file format and directory (batch_state.hpp).
#include "host/packet/batch_state.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "host/io/output_dir.hpp"

namespace saturn {

namespace {

// 2: Counters::no_descriptor; 3: histograms bin-major; 4: the sample point a stop inside a sample
// was heading for (batch_run.cpp), and columns written sparse (Engine::save_state). Version 3
// files are still read (no such point: stopped at one; columns whole).
constexpr const char* kMagic = "saturn batch state 4";
constexpr const char* kMagicV3 = "saturn batch state 3";

// Every vector of Counters, in one order for writing and reading. A field added to Counters
// must be added here: the size check below fails to compile until it is.
template <class C, class F>
void each_counter_field(C& c, F&& f) {
  f(c.generated), f(c.refused), f(c.inj_packets), f(c.inj_flits), f(c.del_packets), f(c.del_flits);
  f(c.net_lat_sum), f(c.msg_done), f(c.msg_lat_sum), f(c.net_hist), f(c.msg_hist), f(c.busy_cycles);
  f(c.busy_until), f(c.flow_flits), f(c.flow_done), f(c.flow_reordered), f(c.violations), f(c.no_descriptor);
  f(c.ctrl_injected), f(c.ctrl_delivered), f(c.acks_dropped), f(c.marked), f(c.ecn_acks), f(c.ecn_echoes), f(c.full_cycles);
  f(c.trace_done), f(c.trace_finish), f(c.arn_sent), f(c.arn_refused), f(c.adapted), f(c.voq_vc);
  f(c.victim_msg_done), f(c.victim_msg_lat_sum), f(c.split_msg_done), f(c.split_msg_lat_sum), f(c.split_msg_flits);
  f(c.drops), f(c.nacks), f(c.retx), f(c.res), f(c.gnt);
  f(c.saa_changes), f(c.saa_off), f(c.saa_above), f(c.saa_settled), f(c.saa_residual);
  f(c.route_setups), f(c.route_setup_cycles), f(c.route_teardowns), f(c.route_full), f(c.route_left);
}
constexpr size_t kCounterVectors = 51;
static_assert(sizeof(Counters) == sizeof(int) + sizeof(uint32_t) + kCounterVectors * sizeof(std::vector<uint64_t>),
              "Counters gained or lost a field: list it in each_counter_field and set kCounterVectors");

void put_metrics(BinaryWriter& out, const std::vector<MetricValue>& metrics) {
  out.put<uint64_t>(metrics.size());
  for (const MetricValue& m : metrics) {
    out.put_string(m.name);
    out.put(m.value);
  }
}

std::vector<MetricValue> get_metrics(BinaryReader& in) {
  std::vector<MetricValue> metrics(in.count(sizeof(uint64_t) + sizeof(double)));
  for (MetricValue& m : metrics) {
    m.name = in.get_string();
    m.value = in.get<double>();
  }
  return metrics;
}

}  // namespace

uint64_t batch_id(const std::vector<TrialSpec>& trials) {
  std::string key;
  for (const TrialSpec& t : trials)
    key += std::to_string(t.point) + "," + std::to_string(t.trial) + "," + std::to_string(t.seed) + ";";
  return fnv1a64(key);
}

std::string batch_state_path(const std::string& dir, const std::string& suffix, uint64_t id, int part) {
  char name[64];
  std::snprintf(name, sizeof name, "_%016llx_p%d.bin", static_cast<unsigned long long>(id), part);
  return dir + "/state" + suffix + name;
}

void put_header(BinaryWriter& out, const BatchStateHeader& h) {
  out.put_string(kMagic);
  out.put_string(h.config_hash);
  out.put(h.batch_id);
  out.put<int32_t>(h.part);
  out.put<uint64_t>(h.trials.size());
  for (const TrialSpec& t : h.trials) {
    out.put<int32_t>(t.point);
    out.put<int32_t>(t.trial);
    out.put(t.seed);
    out.put(t.load);
    out.put(t.background_load);
  }
  out.put(h.padding);
  out.put(h.cycle);
}

BatchStateHeader get_header(BinaryReader& in) {
  const std::string magic = in.left() < 8 ? std::string() : in.get_string();
  if (magic != kMagic && magic != kMagicV3) in.fail("not a saved batch state of this version");
  BatchStateHeader h;
  h.version = magic == kMagic ? 4 : 3;
  h.config_hash = in.get_string();
  h.batch_id = in.get<uint64_t>();
  h.part = in.get<int32_t>();
  h.trials.resize(in.count(32));
  for (TrialSpec& t : h.trials) {
    t.point = in.get<int32_t>();
    t.trial = in.get<int32_t>();
    t.seed = in.get<uint64_t>();
    t.load = in.get<double>();
    t.background_load = in.get<double>();
  }
  h.padding = in.get<uint64_t>();
  h.cycle = in.get<uint32_t>();
  if (h.padding >= h.trials.size()) in.fail("holds no trial to report");
  return h;
}

void put_counters(BinaryWriter& out, const Counters& c) {
  out.put<int32_t>(c.trials);
  out.put(c.cycle);
  each_counter_field(c, [&](const auto& v) { out.put_vector(v); });
}

Counters get_counters(BinaryReader& in) {
  Counters c;
  c.trials = in.get<int32_t>();
  c.cycle = in.get<uint32_t>();
  each_counter_field(c, [&](auto& v) { v = in.get_vector<typename std::decay_t<decltype(v)>::value_type>(); });
  return c;
}

void put_results(BinaryWriter& out, const std::vector<TrialResult>& results) {
  out.put<uint64_t>(results.size());
  for (const TrialResult& r : results) {
    out.put<int32_t>(r.point);
    out.put<int32_t>(r.trial);
    out.put(r.seed);
    put_metrics(out, r.metrics);
  }
}

std::vector<TrialResult> get_results(BinaryReader& in) {
  std::vector<TrialResult> results(in.count(24));
  for (TrialResult& r : results) {
    r.point = in.get<int32_t>();
    r.trial = in.get<int32_t>();
    r.seed = in.get<uint64_t>();
    r.metrics = get_metrics(in);
  }
  return results;
}

void put_series(BinaryWriter& out, const std::vector<SeriesSample>& series) {
  out.put<uint64_t>(series.size());
  for (const SeriesSample& s : series) {
    out.put<int32_t>(s.point);
    out.put<int32_t>(s.trial);
    out.put(s.time_ns);
    put_metrics(out, s.metrics);
  }
}

std::vector<SeriesSample> get_series(BinaryReader& in) {
  std::vector<SeriesSample> series(in.count(24));
  for (SeriesSample& s : series) {
    s.point = in.get<int32_t>();
    s.trial = in.get<int32_t>();
    s.time_ns = in.get<double>();
    s.metrics = get_metrics(in);
  }
  return series;
}

BatchStateFile open_batch_state(const std::string& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  auto is = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (ec || !*is) throw std::runtime_error(path + ": cannot read the saved batch state");
  BatchStateFile f{std::move(is), nullptr, {}};
  f.reader = std::make_unique<BinaryReader>(*f.stream, path + " (saved batch state; remove it to run that batch from its start)",
                                            size);
  f.header = get_header(*f.reader);
  return f;
}

BatchStateHeader read_batch_state_header(const std::string& path) { return open_batch_state(path).header; }

namespace {

// Calls f(path) for each file of DIR named state<suffix>_*.bin (this shard's saved states), and
// with `leftovers` also for the .bin.tmp files of a save that was killed half way.
template <class F>
void each_state_file(const std::string& dir, const std::string& suffix, bool leftovers, F&& f) {
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return;
  const std::string prefix = "state" + suffix + "_";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool saved = entry.path().extension() == ".bin";
    if (name.rfind(prefix, 0) != 0 || !entry.is_regular_file() || !(saved || leftovers)) continue;
    f(entry.path().string());
  }
}

}  // namespace

std::vector<std::pair<std::string, BatchStateHeader>> list_batch_states(const std::string& dir,
                                                                        const std::string& suffix,
                                                                        const std::string& config_hash,
                                                                        const std::string& earlier_hash) {
  std::vector<std::pair<std::string, BatchStateHeader>> found;
  each_state_file(dir, suffix, false, [&](const std::string& path) {
    BatchStateHeader h = read_batch_state_header(path);
    if (state_of_this_run(h.config_hash, config_hash, earlier_hash)) found.emplace_back(path, std::move(h));
  });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return found;
}

void prune_batch_states(const std::string& dir, const std::string& suffix, const std::set<std::pair<int, int>>* done) {
  each_state_file(dir, suffix, true, [&](const std::string& path) {
    bool all_done = done == nullptr;
    if (!all_done) {
      try {
        const BatchStateHeader h = read_batch_state_header(path);
        all_done = true;
        for (size_t i = 0; i + h.padding < h.trials.size(); ++i)
          all_done = all_done && done->count({h.trials[i].point, h.trials[i].trial}) != 0;
      } catch (const std::exception&) {
        all_done = false;  // unreadable: left for --resume to report
      }
    }
    std::error_code ec;
    if (all_done) std::filesystem::remove(path, ec);
  });
  std::error_code ec;
  if (!dir.empty() && std::filesystem::is_directory(dir, ec) && std::filesystem::is_empty(dir, ec))
    std::filesystem::remove(dir, ec);
}

}  // namespace saturn
