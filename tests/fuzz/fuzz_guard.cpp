// Fork-per-input runner of the portable fuzz driver (see fuzz_guard.hpp).
#include "tests/fuzz/fuzz_guard.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>

namespace saturn {
namespace fuzz {

namespace {

// The child's report through a pipe: one byte of outcome, the detail, a NUL, the warning.
void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

bool built_with_asan() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

Result run_guarded(const std::function<Result()>& body, const GuardOptions& options) {
  int fds[2];
  if (pipe(fds) != 0) return {Outcome::kFinding, std::string("harness: pipe failed: ") + std::strerror(errno), ""};
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return {Outcome::kFinding, std::string("harness: fork failed: ") + std::strerror(errno), ""};
  }
  if (pid == 0) {
    close(fds[0]);
    if (options.address_space_mb > 0 && !built_with_asan()) {
      const rlim_t bytes = static_cast<rlim_t>(options.address_space_mb) << 20;
      const rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    // SIGALRM's default action ends the child; the parent reads that as a hang.
    signal(SIGALRM, SIG_DFL);
    alarm(options.hang_seconds);
    Result r;
    try {
      r = body();
    } catch (const std::bad_alloc&) {
      r = {Outcome::kFinding, "std::bad_alloc escaped the target", ""};
    }
    const char code = static_cast<char>(r.outcome);
    write_all(fds[1], &code, 1);
    write_all(fds[1], r.detail.data(), r.detail.size());
    write_all(fds[1], "", 1);
    write_all(fds[1], r.warning.data(), r.warning.size());
    close(fds[1]);
    _exit(0);  // no atexit handlers or static destructors of the parent's state
  }
  close(fds[1]);
  const std::string report = read_all(fds[0]);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGALRM) return {Outcome::kFinding, "hang: over " + std::to_string(options.hang_seconds) + " s", ""};
    return {Outcome::kFinding, "crash: signal " + std::to_string(sig) + " (" + strsignal(sig) + ")", ""};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return {Outcome::kFinding, "crash: exit " + std::to_string(WEXITSTATUS(status)) + " (a sanitizer report?)", ""};
  if (report.empty()) return {Outcome::kFinding, "harness: the child reported nothing", ""};
  const size_t nul = report.find('\0', 1);
  if (nul == std::string::npos) return {Outcome::kFinding, "harness: the child's report was cut short", ""};
  return {static_cast<Outcome>(report[0]), report.substr(1, nul - 1), report.substr(nul + 1)};
}

}  // namespace fuzz
}  // namespace saturn

namespace saturn {
namespace fuzz {

Result run_guarded(Target target, std::string_view input, const Sandbox& sandbox, const Limits& limits,
                   const GuardOptions& options) {
  return run_guarded([&] { return run_target(target, input, sandbox, limits); }, options);
}

}  // namespace fuzz
}  // namespace saturn
