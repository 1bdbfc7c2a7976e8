// Shared helpers for tests that drive the `saturn` executable: run it with arguments, capture the
// exit code, stdout and stderr, or start it in the background to signal it. Header-only.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace test {

// A shell command run through popen: what it wrote to stdout (add 2>&1 for stderr) and pclose's
// status (-1 where popen failed).
struct ShellRun {
  int status = -1;
  std::string out;
};

inline ShellRun shell_output(const std::string& cmd) {
  ShellRun r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe) != nullptr) r.out += buf;
  r.status = pclose(pipe);
  return r;
}

struct CliRun {
  int rc = -1;  // exit status; -1 = killed by a signal (see signal)
  int signal = 0;
  std::string out, err;
};

// Starts SATURN_BINARY with args, stdout/stderr to files in dir; returns the child pid.
inline pid_t spawn_saturn(const std::vector<std::string>& args, const std::string& dir) {
  const std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    std::string bin = SATURN_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Waits up to timeout_s for the child; kills it (and fails) past that.
inline CliRun wait_saturn(pid_t pid, const std::string& dir, double timeout_s = 120) {
  CliRun r;
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "saturn did not finish within " << timeout_s << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) r.rc = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(dir + "/stdout.txt");
  r.err = read_file(dir + "/stderr.txt");
  return r;
}

inline CliRun saturn_cli(const std::vector<std::string>& args) {
  const std::string dir = make_temp_dir("saturn_cli");
  return wait_saturn(spawn_saturn(args, dir), dir);
}

inline int line_count(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  if (!s.empty() && s.back() != '\n') ++n;
  return n;
}

}  // namespace test
}  // namespace saturn
