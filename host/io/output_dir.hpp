// The output directory of a run: which earlier run it holds, whether this run may replace it, and
// writing the new files so that no mix of two runs is ever left behind (temporary files renamed
// into place, the manifest last, every file of the replaced run removed).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace saturn {

// FNV-1a, 64 bits, over a file's bytes: the checksum printed after every run and stored in the
// manifest. Written as 16 lower-case hex digits. Throws std::runtime_error if unreadable.
uint64_t fnv1a64(const std::string& bytes, uint64_t hash = 0xcbf29ce484222325ull);
std::string hex64(uint64_t x);
std::string file_fnv1a64(const std::string& path);

// A manifest's claim that its run finished every trial ("complete"; manifests before issue 9
// only had "partial").
bool manifest_complete(const nlohmann::json& manifest);

// Result files a run writes are named STEM + suffix + EXT (suffix "" or ".shard-I-of-N").
bool is_result_file(const std::string& filename);

// Result files in `dir` that a run writing `suffix` replaces: for an unsharded run (or a merge's
// own outputs) every result file; for shard I of N its own files, the unsharded/merged files and
// the shards of other splits (never its sibling shards of the same split). A merge
// (with_shards = false) replaces only the unsharded files: the shards are its input.
std::vector<std::string> replaced_files(const std::string& dir, const std::string& suffix, bool with_shards = true);

// Throws ConfigError (exit 2, one line naming --force) when a manifest among replaced_files()
// claims a complete run and neither --force nor --resume of that very run was given.
// `keep` (may be empty) is a manifest the caller resumes, exempt from the check.
void refuse_to_replace_complete_run(const std::string& dir, const std::string& suffix, bool force,
                                    const std::string& keep = "");

// Collects a run's new files as temporaries in the directory, then commit() puts them in place:
// the old manifest goes first (no manifest ever describes files it did not write), then the data
// files are renamed over the old ones, stale files of the replaced run are removed, and the
// manifest is renamed in last. Temporaries left by an exception are removed.
class StagedOutput {
 public:
  StagedOutput(std::string dir, std::string suffix, bool replace_shards = true);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  // Final name DIR/STEM<suffix>EXT, and the temporary to write it to.
  std::string final_path(const std::string& stem, const std::string& ext) const;
  std::string stage(const std::string& stem, const std::string& ext);
  void stage_text(const std::string& stem, const std::string& ext, const std::string& text);
  // The staged file's checksum (for the manifest), by final file name.
  std::string staged_fnv1a64(const std::string& stem, const std::string& ext) const;
  // `manifest` goes in last, under manifest<suffix>.json.
  void commit(const nlohmann::json& manifest);

 private:
  struct Entry {
    std::string temp, final_path;
  };
  std::string dir_, suffix_;
  bool replace_shards_;
  std::vector<Entry> staged_;
  bool committed_ = false;
};

}  // namespace saturn
