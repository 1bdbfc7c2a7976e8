// Build and host provenance for manifests (issue 9 item 8).
#include "host/io/provenance.hpp"

#include <unistd.h>

#include <string>
#include <thread>

#ifndef SATURN_BUILD_TYPE
#define SATURN_BUILD_TYPE "unknown"
#endif
#ifndef SATURN_CXX_COMPILER
#define SATURN_CXX_COMPILER "unknown"
#endif

namespace saturn {

nlohmann::json build_provenance() {
  nlohmann::json b;
  b["version"] = SATURN_VERSION;
  b["git_commit"] = saturn_build_commit();
  const std::string dirty = saturn_build_dirty();
  if (dirty == "true" || dirty == "false") b["git_dirty"] = dirty == "true";
  else b["git_dirty"] = nullptr;  // not a git checkout: unknown, not clean
  b["build_type"] = SATURN_BUILD_TYPE;
  b["backend"] = SATURN_BACKEND_NAME;
  b["compiler"] = SATURN_CXX_COMPILER;
  return b;
}

nlohmann::json host_provenance() {
  nlohmann::json h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
  h["host"] = name[0] ? std::string(name) : std::string("unknown");
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  h["cores"] = online > 0 ? static_cast<int>(online) : static_cast<int>(std::thread::hardware_concurrency());
  return h;
}

}  // namespace saturn
