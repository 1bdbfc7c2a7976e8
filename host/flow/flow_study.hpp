// Flow-mode studies (simulation.mode = "flow"), dispatched to by run_study / validate_study.
#pragma once

#include "host/engine/study.hpp"

namespace saturn {

StudyResult run_flow_study(const Config& config, const StudyOptions& options);
void validate_flow_study(const Config& config, const StudyOptions& options);

}  // namespace saturn
