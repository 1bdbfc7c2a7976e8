// Entry point of the `saturn` command (kept out of main.cpp so tests can call it).
#pragma once

namespace saturn {

// Returns the process exit code: 0 ok, 1 runtime error, 2 bad input, 130 stopped by SIGINT.
int saturn_main(int argc, char** argv);

// OMP_NUM_THREADS as Saturn reads it: its first (outermost) level, 1..4096; 0 when it is not
// one. Uses no C library function, so that main.cpp may call it before the library's initializers.
int omp_num_threads_value(const char* text);

// Where main.cpp moves an OMP_NUM_THREADS that omp_num_threads_value refuses, before libgomp
// starts: libgomp would print a line of its own about it, and the error is to be one line, Saturn's.
constexpr const char* kRefusedOmpNumThreads = "SATURN_REFUSED_OMP_NUM_THREADS";

}  // namespace saturn
