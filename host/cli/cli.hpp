// Entry point of the `saturn` command (kept out of main.cpp so tests can call it).
#pragma once

namespace saturn {

// Returns the process exit code: 0 ok, 1 runtime error, 2 bad input, 130 stopped by SIGINT.
int saturn_main(int argc, char** argv);

}  // namespace saturn
