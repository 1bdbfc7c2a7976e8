// Provenance recorded in every manifest: how the binary was built (git commit and dirtiness,
// build type, backend, compiler) and where it ran (host name, cores).
#pragma once
#include <nlohmann/json.hpp>

namespace saturn {

// Defined in the build directory's generated/build_info.cpp (cmake/build_info.cmake).
const char* saturn_build_commit();  // 40 hex digits, or "unknown" outside a git checkout
const char* saturn_build_dirty();   // "true", "false" or "unknown"

// {"git_commit", "git_dirty", "build_type", "backend", "compiler", "version"}
nlohmann::json build_provenance();
// {"host", "cores"} of the machine running now.
nlohmann::json host_provenance();

}  // namespace saturn
