// Result files of a run or a merge: staged as temporaries, checksummed into the manifest, then
// renamed into place (host/io/output_dir.hpp says in which order and why).
#include "host/io/run_output.hpp"

#include "host/io/output_dir.hpp"
#include "host/io/results_io.hpp"

namespace saturn {

namespace {

nlohmann::json checksum_entry(const StagedOutput& out, const std::string& stem, const std::string& ext) {
  return {{"fnv1a64", out.staged_fnv1a64(stem, ext)}};
}

}  // namespace

std::string write_run_outputs(const std::string& dir, const std::string& suffix, const Config& config,
                              const StudyResult& result, RunContext context) {
  StagedOutput out(dir, suffix);
  write_trials_csv(out.stage("trials", ".csv"), result.points, result.swept_keys, result.trials);
  context.files["trials" + suffix + ".csv"] = checksum_entry(out, "trials", ".csv");
  if (!result.series.empty()) {
    write_series_csv(out.stage("series", ".csv"), result.points, result.swept_keys, result.series);
    context.files["series" + suffix + ".csv"] = checksum_entry(out, "series", ".csv");
  }
  if (suffix.empty()) {
    write_summary_csv(out.stage("summary", ".csv"), result.points, result.swept_keys, summarize(result.trials));
    context.files["summary.csv"] = checksum_entry(out, "summary", ".csv");
  }
  const std::string checksum = out.staged_fnv1a64("trials", ".csv");
  out.commit(make_manifest(config, result, context));
  return "trials" + suffix + ".csv fnv1a64=" + checksum;
}

std::string write_merged_outputs(const std::string& dir, MergedRun& run) {
  StagedOutput out(dir, "", /*replace_shards=*/false);
  nlohmann::json files = nlohmann::json::object();
  write_trials_csv(out.stage("trials", ".csv"), run.points, run.swept_keys, run.trials);
  files["trials.csv"] = checksum_entry(out, "trials", ".csv");
  write_summary_csv(out.stage("summary", ".csv"), run.points, run.swept_keys, summarize(run.trials));
  files["summary.csv"] = checksum_entry(out, "summary", ".csv");
  if (!run.series_csv.empty()) {
    out.stage_text("series", ".csv", run.series_csv);
    files["series.csv"] = checksum_entry(out, "series", ".csv");
  }
  run.manifest["files"] = files;
  const std::string checksum = out.staged_fnv1a64("trials", ".csv");
  out.commit(run.manifest);
  return "trials.csv fnv1a64=" + checksum;
}

}  // namespace saturn
