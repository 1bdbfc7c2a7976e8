// Reading back trials.csv and series.csv (for `saturn merge` and `run --resume`), strictly: a file
// cut mid-line, a row of the wrong width, a number that does not parse or a (point, trial) that
// appears twice is an error, never a silently shorter result.
#pragma once
#include <string>
#include <vector>

#include "host/stats/summary.hpp"

namespace saturn {

// Rows of one trial (or series sample) are consecutive, as the writers produce them. Throws
// ConfigError("PATH line N: ...") on any defect; `swept` is the number of swept-key columns.
std::vector<TrialResult> read_trials_csv(const std::string& path, size_t swept);
std::vector<SeriesSample> read_series_csv(const std::string& path, size_t swept);

// Throws ConfigError naming `where` when two trials share a (point, trial) or are out of
// (point, trial) order; trials must be sorted as a run writes them.
void check_trial_order(const std::vector<TrialResult>& trials, const std::string& where);

}  // namespace saturn
