// saturn: the command-line driver (all logic lives in host/cli).
#include "host/cli/cli.hpp"

#include <cstddef>

namespace {

// Runs from the executable's .preinit_array, before any shared library's initializer: libgomp's
// reads OMP_NUM_THREADS and prints "libgomp: Invalid value ..." for a bad one, a second line beside
// Saturn's own error. A value Saturn refuses is renamed to kRefusedOmpNumThreads in place (no
// allocation: the entry points at a static buffer), where default_threads finds and reports it.
char g_renamed[256];

void hide_bad_omp_num_threads(int, char**, char** envp) {
  static constexpr char kName[] = "OMP_NUM_THREADS=";
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    const char* entry = *e;
    int i = 0;
    while (kName[i] != '\0' && entry[i] == kName[i]) ++i;
    // (an empty value too: Saturn takes it as unset, libgomp would call it invalid)
    if (kName[i] != '\0' || (entry[i] != '\0' && saturn::omp_num_threads_value(entry + i) != 0)) continue;
    std::size_t n = 0;
    for (const char* c = saturn::kRefusedOmpNumThreads; *c != '\0';) g_renamed[n++] = *c++;
    g_renamed[n++] = '=';
    for (const char* c = entry + i; *c != '\0' && n + 1 < sizeof g_renamed;) g_renamed[n++] = *c++;
    g_renamed[n] = '\0';
    *e = g_renamed;
    return;
  }
}

__attribute__((section(".preinit_array"), used)) void (*const g_preinit)(int, char**, char**) = hide_bad_omp_num_threads;

}  // namespace

int main(int argc, char** argv) { return saturn::saturn_main(argc, argv); }
