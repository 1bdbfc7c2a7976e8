// `saturn plot` and `saturn reproduce`: thin doors to the Python tools in scripts/ (matplotlib
// lives there), found next to the executable or in the source tree this binary was built from.
#pragma once
#include <string>
#include <vector>

namespace saturn {

// The path of scripts/NAME: $SATURN_SCRIPTS_DIR, then <executable dir>/../scripts (a build folder
// inside the checkout), then the source tree's scripts/ recorded at build time. Empty if none has it.
std::string find_script(const std::string& name);

// This executable's absolute path (for the tools to call back), or "saturn" if unknown.
std::string self_executable();

// Replaces this process with `python3 SCRIPT ARGS...` (Debian's /usr/bin/python3 first: it sees
// python3-matplotlib). Returns only on failure: one line on stderr and exit code 2.
int exec_script(const std::string& name, const std::vector<std::string>& args);

}  // namespace saturn
