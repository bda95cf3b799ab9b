// The text view of the run's status (gz_status without --json).  The status
// itself is collected by common/status/run_status.h, shared with the dashboard.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status/run_status.h"  // CollectStatus, StatusOptions, PidAlive

namespace gz {

// Renders CollectStatus() output as the human table of launch/status.sh.
std::string FormatStatus(const nlohmann::json& status);

}  // namespace gz
