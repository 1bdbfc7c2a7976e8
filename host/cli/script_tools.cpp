// Finding and running the Python tools behind `saturn plot` and `saturn reproduce`.
#include "host/cli/script_tools.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace saturn {

namespace fs = std::filesystem;

std::string self_executable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("saturn") : exe.string();
}

std::string find_script(const std::string& name) {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("SATURN_SCRIPTS_DIR"); env != nullptr && *env != '\0') dirs.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "scripts");
  dirs.emplace_back(SATURN_SCRIPTS_DIR_DEFAULT);
  for (const fs::path& dir : dirs)
    if (fs::is_regular_file(dir / name, ec)) return (dir / name).string();
  return "";
}

int exec_script(const std::string& name, const std::vector<std::string>& args) {
  const std::string script = find_script(name);
  if (script.empty()) {
    std::cerr << "saturn: cannot find scripts/" << name
              << " (next to the executable, in the source tree, or in $SATURN_SCRIPTS_DIR)\n";
    return 2;
  }
  const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv_text{python, script};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(python.c_str(), argv.data());
  std::cerr << "saturn: cannot run " << python << " " << script << ": " << std::strerror(errno)
            << " (bash scripts/setup.sh installs python3 and python3-matplotlib)\n";
  return 2;
}

}  // namespace saturn
