// Readers of files a user names (configs, shard manifests and CSVs, a run to resume) take regular
// files only: a FIFO blocks open() or read() forever, /dev/zero never ends, a directory is no text.
#pragma once
#include <string>

namespace saturn {

// Throws ConfigError "WHAT 'PATH' is not a regular file (a FIFO)" (or a directory, a device or
// socket), or "cannot read WHAT 'PATH': REASON" when it cannot be looked at. Checked with stat(),
// which neither opens nor blocks; a symbolic link is judged by what it points to.
void require_regular_file(const std::string& path, const std::string& what);

// True for a path that exists and is not a regular file (nothing is thrown).
bool is_special_file(const std::string& path);

}  // namespace saturn
