// Output directory policy (issue 9 item 5): refuse to replace a complete run without --force, write
// through temporaries renamed into place, and leave no file of an older run beside the new one.
#include "host/io/output_dir.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "host/config/config_error.hpp"
#include "host/io/regular_file.hpp"

namespace saturn {

namespace fs = std::filesystem;

uint64_t fnv1a64(const std::string& bytes, uint64_t hash) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex64(uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

std::string file_fnv1a64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  uint64_t hash = 0xcbf29ce484222325ull;
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    hash = fnv1a64(std::string(buf.data(), static_cast<size_t>(in.gcount())), hash);
  }
  return hex64(hash);
}

bool manifest_complete(const nlohmann::json& m) {
  if (m.contains("complete") && m["complete"].is_boolean()) return m["complete"].get<bool>();
  return m.contains("partial") && m["partial"].is_boolean() && !m["partial"].get<bool>();
}

namespace {

// STEM(.shard-III-of-NNN)?EXT for the four result files.
const std::regex& result_name() {
  static const std::regex re(R"((trials|summary|series|manifest)(\.shard-(\d+)-of-(\d+))?\.(csv|json))");
  return re;
}

nlohmann::json read_manifest(const std::string& path) {
  if (is_special_file(path)) return nlohmann::json();  // a FIFO would block: not a run, replaced as stale
  std::ifstream in(path);
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return nlohmann::json();  // unreadable: not a complete run, and replaced like any stale file
  }
}

}  // namespace

bool is_result_file(const std::string& filename) {
  std::smatch m;
  if (!std::regex_match(filename, m, result_name())) return false;
  return (m[1] == "manifest") == (m[5] == "json");
}

std::vector<std::string> replaced_files(const std::string& dir, const std::string& suffix, bool with_shards) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  std::smatch own;
  const std::string own_name = "trials" + suffix + ".csv";
  const bool sharded = std::regex_match(own_name, own, result_name()) && own[2].matched;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    std::smatch m;
    if (!is_result_file(name) || !std::regex_match(name, m, result_name())) continue;
    // A shard keeps its siblings of the same split: they belong to the same run.
    if (sharded && m[2].matched && m[2] != own[2] && m[4] == own[4]) continue;
    if (!with_shards && m[2].matched) continue;
    out.push_back(entry.path().string());
  }
  return out;
}

void refuse_to_replace_complete_run(const std::string& dir, const std::string& suffix, bool force,
                                    const std::string& keep) {
  if (force) return;
  for (const std::string& path : replaced_files(dir, suffix)) {
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0 || path == keep) continue;
    if (manifest_complete(read_manifest(path)))
      throw ConfigError("--out " + dir + " holds a complete run (" + fs::path(path).filename().string() +
                        "); pass --force to overwrite it");
  }
}

StagedOutput::StagedOutput(std::string dir, std::string suffix, bool replace_shards)
    : dir_(std::move(dir)), suffix_(std::move(suffix)), replace_shards_(replace_shards) {}

StagedOutput::~StagedOutput() {
  if (committed_) return;
  std::error_code ec;
  for (const Entry& e : staged_) fs::remove(e.temp, ec);
}

std::string StagedOutput::final_path(const std::string& stem, const std::string& ext) const {
  return dir_ + "/" + stem + suffix_ + ext;
}

std::string StagedOutput::stage(const std::string& stem, const std::string& ext) {
  const std::string final_name = final_path(stem, ext);
  // Hidden and named by process: concurrent shards writing into one directory never collide.
  const std::string temp = dir_ + "/." + stem + suffix_ + ext + ".tmp-" + std::to_string(getpid());
  staged_.push_back({temp, final_name});
  return temp;
}

void StagedOutput::stage_text(const std::string& stem, const std::string& ext, const std::string& text) {
  const std::string temp = stage(stem, ext);
  std::ofstream os(temp, std::ios::binary | std::ios::trunc);
  os << text;
  os.close();
  if (!os) throw std::runtime_error("error while writing '" + temp + "'");
}

std::string StagedOutput::staged_fnv1a64(const std::string& stem, const std::string& ext) const {
  const std::string final_name = final_path(stem, ext);
  for (const Entry& e : staged_)
    if (e.final_path == final_name) return file_fnv1a64(e.temp);
  throw std::logic_error("staged_fnv1a64: '" + final_name + "' was not staged");
}

void StagedOutput::commit(const nlohmann::json& manifest) {
  const std::string manifest_path = final_path("manifest", ".json");
  const std::string manifest_temp = stage("manifest", ".json");
  {
    std::ofstream os(manifest_temp, std::ios::trunc);
    os << manifest.dump(2) << "\n";
    os.close();
    if (!os) throw std::runtime_error("error while writing '" + manifest_temp + "'");
  }
  std::error_code ec;
  fs::remove(manifest_path, ec);  // from here until the end, the directory claims no run
  std::vector<std::string> written;
  for (const Entry& e : staged_) written.push_back(e.final_path);
  for (const std::string& stale : replaced_files(dir_, suffix_, replace_shards_)) {
    bool rewritten = false;
    for (const std::string& w : written) rewritten = rewritten || fs::path(w) == fs::path(stale);
    if (!rewritten) fs::remove(stale, ec);
  }
  for (const Entry& e : staged_) {
    if (e.final_path == manifest_path) continue;
    fs::rename(e.temp, e.final_path);  // throws filesystem_error (exit 1) with both paths
  }
  fs::rename(manifest_temp, manifest_path);
  committed_ = true;
}

}  // namespace saturn
