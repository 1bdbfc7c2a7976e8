// Saved batch states (saturn run --save-state, --resume): a running part of a packet batch
// (host/packet/batch_run.hpp) writes its whole state to one file when the run is stopped and at
// most every so many seconds while it runs, so that a stopped or killed run goes on from that
// cycle instead of from the batch's start. A file holds:
//   - a header: the run's config hash, the batch's id and the part's index, the part's trials
//     (padding included) as the engine took them, the cycle;
//   - the engine's columns (Engine::save_state);
//   - the batch loop's host state: window and series counters, the stall watch, the trials already
//     finished and the series samples so far (batch_run.cpp).
// Files are this build's own format (machine byte order, columns in list order); another build
// or model is refused by name, never misread.
#pragma once
#include <cstdint>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "host/io/binary_io.hpp"
#include "host/stats/summary.hpp"

namespace saturn {

struct BatchStateHeader {
  std::string config_hash;  // the run's (host/io/manifest.hpp): a state of another config is never used
  uint64_t batch_id = 0;    // batch_id() of the batch the part belongs to
  int part = 0;             // the part's index within its batch
  std::vector<TrialSpec> trials;  // as the engine took them, padding last
  uint64_t padding = 0;
  uint32_t cycle = 0;       // the engine's cycle when saved
  int version = 4;          // of the file format (3: written before a stop could cut a sample)
};

// An id for a batch from its trials (point, trial, seed): the same trials, the same id.
uint64_t batch_id(const std::vector<TrialSpec>& trials);

// DIR/state<suffix>_<batch id>_p<part>.bin
std::string batch_state_path(const std::string& dir, const std::string& suffix, uint64_t batch_id, int part);

// A saved state opened for reading, its header read: `reader` stands at the engine's columns.
struct BatchStateFile {
  std::unique_ptr<std::ifstream> stream;
  std::unique_ptr<BinaryReader> reader;
  BatchStateHeader header;
};

// Opens the saved state at PATH and reads its header. Throws std::runtime_error naming the file.
BatchStateFile open_batch_state(const std::string& path);

// The header of the saved state at PATH (open_batch_state without the rest).
BatchStateHeader read_batch_state_header(const std::string& path);

// Whether a state saved under config hash `saved` is this run's: its own hash, or that of the
// earlier build whose run --resume took as the same run (earlier_hash; "" for none).
inline bool state_of_this_run(const std::string& saved, const std::string& config_hash, const std::string& earlier_hash) {
  return saved == config_hash || (!earlier_hash.empty() && saved == earlier_hash);
}

// The saved states in DIR of this shard (suffix), with their headers; files of another config
// hash than config_hash or earlier_hash (a resumed run's earlier build; "" for none) are skipped.
// Throws std::runtime_error naming a file whose header cannot be read.
std::vector<std::pair<std::string, BatchStateHeader>> list_batch_states(const std::string& dir,
                                                                        const std::string& suffix,
                                                                        const std::string& config_hash,
                                                                        const std::string& earlier_hash = "");

// Removes the saved states of this shard whose reported trials are all in `done` (every saved
// state with done == nullptr): called once the run's files hold those trials.
void prune_batch_states(const std::string& dir, const std::string& suffix,
                        const std::set<std::pair<int, int>>* done);

// The pieces of a file, in the order batch_run.cpp writes them.
void put_header(BinaryWriter& out, const BatchStateHeader& h);
BatchStateHeader get_header(BinaryReader& in);
void put_counters(BinaryWriter& out, const Counters& c);
Counters get_counters(BinaryReader& in);
void put_results(BinaryWriter& out, const std::vector<TrialResult>& results);
std::vector<TrialResult> get_results(BinaryReader& in);
void put_series(BinaryWriter& out, const std::vector<SeriesSample>& series);
std::vector<SeriesSample> get_series(BinaryReader& in);

// The last record of a file: a file without it was cut short.
constexpr uint64_t kBatchStateEnd = 0x444e452d45544154ull;  // "TATE-END"

}  // namespace saturn
