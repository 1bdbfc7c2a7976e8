// See regular_file.hpp.
#include "host/io/regular_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "host/config/config_error.hpp"

namespace saturn {

void require_regular_file(const std::string& path, const std::string& what) {
  const std::string shown = clip_for_message(path);
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw ConfigError("cannot read " + what + " '" + shown + "': " + std::strerror(errno));
  if (S_ISREG(st.st_mode)) return;
  throw ConfigError(what + " '" + shown + "' is not a regular file (" +
                    (S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket") + ")");
}

bool is_special_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

}  // namespace saturn
