// `saturn reproduce`: the figure list, one quick reproduction end to end (runs, CSV, plot, checks),
// the status table of the committed results and checks computed from a committed result,
// a figure run again (replaced, or resumed with --resume), a figure run in slices (--shard) and by scripts/run_slices.sh,
// the Rocher-Gonzalez Fig. 6 runs validated without running, the Rocher runs side by side stopping
// together, and an unknown paper or figure as one error line with exit code 2.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;

TEST(Reproduce, ListShowsEveryFigureWithItsWallTime) {
  const test::CliRun r = test::saturn_cli({"reproduce", "--list"});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* fig : {"fig2a", "fig2b", "fig3a", "fig3b", "fig4a", "fig4b", "fig4c", "fig4d", "fig5", "fig6",
                          "fig7", "fig8a", "fig8b"})
    EXPECT_NE(r.out.find(std::string("santos2002   ") + fig + " "), std::string::npos) << fig << "\n" << r.out;
  for (const char* fig : {"fig1", "fig4", "fig5", "fig6", "alg1"})
    EXPECT_NE(r.out.find(std::string("zdornov2009  ") + fig + " "), std::string::npos) << fig << "\n" << r.out;
  for (const char* fig : {"fig5", "fig7"})
    EXPECT_NE(r.out.find(std::string("jiang2015    ") + fig + " "), std::string::npos) << fig << "\n" << r.out;
  EXPECT_NE(r.out.find("rocher2021   fig6 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rocher2021   fig6h10 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rocher2021   fig7 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rocher2021   fig8 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("quick"), std::string::npos);
  EXPECT_NE(r.out.find("'~' marks an estimate"), std::string::npos);
}

TEST(Reproduce, UnknownPaperOrFigureIsOneErrorLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"reproduce", "smith1999", "fig1"}, {"reproduce", "zdornov2009", "fig99"},
        {"reproduce", "rocher2021", "fig9"},
        {"reproduce"}}) {
    const test::CliRun r = test::saturn_cli(args);
    EXPECT_EQ(r.rc, 2) << args.size();
    EXPECT_EQ(test::line_count(r.err), 1) << r.err;
    // No arguments: it asks for them (issue 65 item 11: it said "unknown paper 'None'").
    const std::string want = args.size() == 1 ? "saturn reproduce: which paper and figure?" : "saturn reproduce: unknown";
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("None"), std::string::npos) << r.err;
  }
}

// The figure configs of Jiang et al. and Zdornov & Birk (one study per figure) are what
// scripts/figure_configs.py makes of their per-curve configs: a per-curve config changed without
// its figure config regenerated fails here, naming the file.
TEST(Reproduce, FigureConfigsMatchTheirPerCurveConfigs) {
  const test::ShellRun run =
      test::shell_output("/usr/bin/python3 " + test::source_path("scripts/figure_configs.py") + " --check 2>&1");
  EXPECT_EQ(run.status, 0) << run.out;
}

// docs/reproductions.md is what `saturn reproduce --status` makes of the committed checks files
// (docs/<paper>/<name>_checks.csv, as the figures' records name them): a checks file or a figure's
// committed results changed without the table regenerated fails here, as does a reason link to a
// heading its paper's page lacks. Runs nothing.
TEST(Reproduce, StatusTableMatchesTheCommittedChecks) {
  const test::CliRun r = test::saturn_cli({"reproduce", "--status", "--check"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("docs/reproductions.md matches the committed checks files"), std::string::npos) << r.out;
}

// A miss of a full-length result named open (committed(..., open_misses)) is listed under "Open misses
// at full length" with what is open; an open entry that matches none of its result's misses (the miss
// passed on a new run, or its check was renamed) is an error of --status, so the list cannot outlive
// its misses. Fake records over committed checks files: Jiang Fig. 9 (2 misses), Zdornov Fig. 5 (none).
TEST(Reproduce, StatusListsOpenMissesAndRefusesStaleOnes) {
  const std::string script =
      "import sys; sys.path.insert(0, sys.argv[1]); import reproduce_status as s, reproduce_runs as r\n"
      "def fig(paper, f, name, start): return {f: dict(paper=paper, fig=f, item='1', committed=[\n"
      "    r.committed(name, 'full', '', open_misses=[(start, 'WHAT IS OPEN')])])}\n"
      "live = fig('jiang2015', 'fig9', 'fig9', 'item 20: LHRP latency knee')\n"
      "stale = fig('zdornov2009', 'fig5', 'fig5', 'no such check')\n"
      "print('stale:', len(s.stale_open(live)), len(s.stale_open(stale)))\n"
      "page = s.page(live)\n"
      "print('listed:', page.count('*Open*: WHAT IS OPEN'), '(**open**)' in page)\n"
      "print(page.split('## Open misses at full length')[1].split('## Misses')[0])\n";
  const std::string dir = test::make_temp_dir("saturn_reproduce_open");
  std::ofstream(dir + "/open.py") << script;
  const test::ShellRun run = test::shell_output("/usr/bin/python3 " + dir + "/open.py " +
                                                test::source_path("scripts") + " 2>&1");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("stale: 0 1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("listed: 1 True"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("item 20: LHRP latency knee (> 2x its 3x latency) within the sweep: none up to 60x"),
            std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("fabric-drop latency"), std::string::npos) << "only the named miss is open\n" << run.out;
  fs::remove_all(dir);
}

// --checks-only computes a figure's checks from the CSV files a run wrote, nothing run: Zdornov &
// Birk Fig. 5's committed summary gives its committed checks file byte for byte.
TEST(Reproduce, ChecksOnlyRederivesACommittedChecksFile) {
  const std::string dir = test::make_temp_dir("saturn_reproduce_checks");
  fs::copy_file(test::source_path("docs/zdornov2009/fig5_summary.csv"), dir + "/fig5_summary.csv");
  const test::CliRun r = test::saturn_cli({"reproduce", "zdornov2009", "fig5", "--checks-only", dir});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("zdornov2009 fig5: 9 of 9 checks pass"), std::string::npos) << r.out;
  EXPECT_EQ(test::read_file(dir + "/fig5_checks.csv"),
            test::read_file(test::source_path("docs/zdornov2009/fig5_checks.csv")));
  const test::CliRun none = test::saturn_cli({"reproduce", "zdornov2009", "fig6probes", "--checks-only", dir});
  EXPECT_EQ(none.rc, 2);
  EXPECT_EQ(test::line_count(none.err), 1) << none.err;
  fs::remove_all(dir);
}

// Jiang et al. 2015: every run of every figure (full and --quick), as scripts/jiang2015.py lists
// them, is a valid config with its overrides; the runs themselves take minutes (docs/jiang2015.md).
TEST(Reproduce, Jiang2015RunsValidate) {
  const test::ShellRun run = test::shell_output("/usr/bin/python3 " + test::source_path("scripts/jiang2015.py") + " runs");
  const std::string& listing = run.out;
  ASSERT_EQ(run.status, 0) << listing;
  std::istringstream lines(listing);
  std::string line;
  int runs = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream cols(line);
    for (std::string f; std::getline(cols, f, '\t');) fields.push_back(f);
    ASSERT_GE(fields.size(), 3u) << line;
    std::vector<std::string> args = {"validate", test::source_path(fields[2])};
    for (size_t i = 3; i < fields.size(); ++i) args.insert(args.end(), {"--set", fields[i]});
    const test::CliRun r = test::saturn_cli(args);
    EXPECT_EQ(r.rc, 0) << line << "\n" << r.err;
    ++runs;
  }
  // One study each for fig2, fig7, fig5, fig6, fig9, fig10 and fig12 (a `curve` axis over their series);
  // a config per panel for fig11 (UR, hot spot) and fig13 (WC-Hot n): 10 runs, full and quick
  EXPECT_EQ(runs, 20) << listing;
}

// `saturn reproduce rocher2021 FIG [--quick] --validate` passes every run of the quick and the full
// figure: rc 0 and "N of N runs valid".
void expect_every_run_valid(const std::string& fig, int quick_runs, int full_runs) {
  for (const bool quick : {true, false}) {
    std::vector<std::string> args = {"reproduce", "rocher2021", fig, "--validate"};
    if (quick) args.insert(args.begin() + 3, "--quick");
    const test::CliRun r = test::saturn_cli(args);
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    const int n = quick ? quick_runs : full_runs;
    const std::string line = "rocher2021 " + fig + (quick ? " --quick: " : ": ") + std::to_string(n) + " of " +
                             std::to_string(n) + " runs valid";
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  }
}

// Rocher-Gonzalez et al. Fig. 6: every run of the full figure (120 curves, ARN+AFI under R1 and R3 + text) and
// of the quick preview (with its time / 10 overrides and incast readings) passes `saturn validate`;
// nothing runs. A missing config or an override a technique refuses fails here.
TEST(Reproduce, Rocher2021Fig6RunsValidate) {
  expect_every_run_valid("fig6", 5, 122);
  const test::CliRun other = test::saturn_cli({"reproduce", "zdornov2009", "fig1", "--validate"});
  EXPECT_EQ(other.rc, 2);
  EXPECT_EQ(test::line_count(other.err), 1) << other.err;
}

// Fig. 6's H10 1Q panel at the paper's timing (fig6h10): the quick mode's five curves, at full
// length and 5 trials; its --quick is the fig6 preview's five curves.
TEST(Reproduce, Rocher2021Fig6H10RunsValidate) { expect_every_run_valid("fig6h10", 5, 5); }

// Rocher-Gonzalez et al. Fig. 7: Fig. 6's configs on the 3456-node RLFT (radix 24, config #2's
// four hot spots for H10-4 and H25-4), the 120 curves of the full figure and the 4 of the preview,
// pass `saturn validate` (which sizes the 720-switch tables without building them); nothing runs.
TEST(Reproduce, Rocher2021Fig7RunsValidate) { expect_every_run_valid("fig7", 4, 120); }

// Rocher-Gonzalez et al. Fig. 8: every (trace, queuing scheme, technique, with or without the
// tree) run of the full figure and of the quick preview (96 each) passes `saturn validate` with
// the technique's overrides on the shipped preview traces; nothing runs.
TEST(Reproduce, Rocher2021Fig8RunsValidate) { expect_every_run_valid("fig8", 96, 96); }

// A figure's saturn runs are children of its script (scripts/saturn_child.py run): a stop (SIGINT
// to the script alone) passes SIGINT on to the run in flight and waits for it to write its files
// before the script stops. Here the run is a shell that stands for saturn: on SIGINT it takes a
// second to "save", writes a file and exits 130, as saturn does; a failed run is raised with its
// exit status. The test takes a few seconds.
TEST(Reproduce, AStopReachesTheRunInFlightAndWaitsForItsFiles) {
  const fs::path dir = fs::temp_directory_path() / ("saturn_child_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string script = R"PY(
import os, signal, subprocess, sys, threading, time
sys.path.insert(0, sys.argv[1])
import saturn_child as r
saved = os.path.join(sys.argv[2], "saved")
r.install_stop_signals()
if sys.argv[3] == "stop":
    threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    if sys.argv[3] == "fail":
        r.run(["sh", "-c", "exit 3"])
    r.run(["sh", "-c", f"sleep 30 </dev/null >/dev/null 2>&1 & trap 'kill $!; sleep 1; echo done > {saved}; exit 130' INT; wait"])
    print("ran")
except KeyboardInterrupt:
    print("stopped")
except subprocess.CalledProcessError as e:
    print(f"failed {e.returncode}")
print(f"{time.monotonic() - start:.1f} s, saved {os.path.exists(saved)}")
)PY";
  const fs::path py = dir / "child.py";
  { std::ofstream(py) << script; }
  for (const std::string mode : {"stop", "fail"}) {
    fs::remove(dir / "saved");
    const std::string cmd = "/usr/bin/python3 " + py.string() + " " + test::source_path("scripts") + " " + dir.string() +
                            " " + mode + " 2>&1";
    const test::ShellRun run = test::shell_output(cmd);
    const std::string& out = run.out;
    ASSERT_EQ(run.status, 0) << out;
    EXPECT_NE(out.find(mode == "stop" ? "stopped" : "failed 3"), std::string::npos) << mode << ": " << out;
    double seconds = 99;
    char saved[8] = {0};
    const size_t last = out.rfind('\n', out.size() - 2);  // the script's last line
    ASSERT_EQ(std::sscanf(out.c_str() + (last == std::string::npos ? 0 : last + 1), "%lf s, saved %5s", &seconds, saved),
              2) << out;
    EXPECT_LT(seconds, 15.0) << mode << ": " << out;  // the run in flight was stopped, not waited to its end
    // A stopped run was waited for until its files were written; a failed one never started the next.
    EXPECT_EQ(std::string(saved), mode == "stop" ? "True" : "False") << mode << ": " << out;
  }
  fs::remove_all(dir);
}

// A figure's run stopped by SIGTERM or SIGHUP sent to saturn alone (a `kill`, a batch scheduler)
// exits 128 + the signal: the figure stops with its files kept, as on SIGINT, and is not reported
// as a failed run. SATURN_BINARY picks the build, here a shell that stands for a stopped saturn.
TEST(Reproduce, ARunStoppedBySigtermOrSighupIsAStopNotAFailure) {
  const std::string dir = test::make_temp_dir("saturn_reproduce_term");
  for (const int status : {143, 129, 3}) {
    const std::string fake = dir + "/saturn_" + std::to_string(status);
    { std::ofstream(fake) << "#!/bin/sh\nexit " << status << "\n"; }
    fs::permissions(fake, fs::perms::owner_all);
    const test::ShellRun run = test::shell_output("SATURN_BINARY=" + fake + " /usr/bin/python3 " +
                                                  test::source_path("scripts/reproduce.py") +
                                                  " zdornov2009 fig1 --quick --out " + dir + "/fig1 2>&1");
    if (status == 3) {
      EXPECT_NE(run.out.find("failed (exit 3"), std::string::npos) << run.out;
      EXPECT_EQ(WEXITSTATUS(run.status), 1) << run.out;
    } else {
      EXPECT_NE(run.out.find("fig1: stopped; the trials each run finished are kept"), std::string::npos)
          << status << ": " << run.out;
      EXPECT_EQ(WEXITSTATUS(run.status), 130) << status << ": " << run.out;
    }
  }
}

// Zdornov & Birk Fig. 1, quick: two short packet-engine runs (under a second) and 9 checks.
TEST(Reproduce, QuickFigureEndToEnd) {
  const std::string out = test::make_temp_dir("saturn_reproduce") + "/fig1";
  const test::CliRun r = test::saturn_cli({"reproduce", "zdornov2009", "fig1", "--quick", "--out", out});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("zdornov2009 fig1 (item 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NC completion (flow-times)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("9 of 9 checks pass"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_regular_file(out + "/checks.csv"));
  EXPECT_TRUE(fs::is_regular_file(out + "/nc/summary.csv"));
  EXPECT_TRUE(fs::is_regular_file(out + "/optimal/trials.csv"));
}

// A figure in slices (--shard I --shards N, scripts/reproduce_shards.py): each command runs its slice
// of the figure's run in hand; until every slice of a run is there it says which are missing and
// exits 0, and the slice that completes a run merges it and goes on, run by run (Zdornov Fig. 1 is
// two runs, so 2 slices take three commands before the figure is written). The merged runs and the
// checks come out byte-identical to the figure run whole.
TEST(Reproduce, AFigureInSlicesGivesTheWholeRunsFiles) {
  const std::string dir = test::make_temp_dir("saturn_reproduce");
  const test::CliRun whole = test::saturn_cli({"reproduce", "zdornov2009", "fig1", "--quick", "--out", dir + "/whole"});
  ASSERT_EQ(whole.rc, 0) << whole.err;
  const auto slice = [&](int i) {
    return test::saturn_cli({"reproduce", "zdornov2009", "fig1", "--quick", "--out", dir + "/sliced", "--shard",
                             std::to_string(i), "--shards", "2"});
  };
  const test::CliRun first = slice(1);
  ASSERT_EQ(first.rc, 0) << first.err;
  EXPECT_NE(first.err.find("1 of 2 slices complete there (missing: 0)"), std::string::npos) << first.err;
  EXPECT_FALSE(fs::exists(dir + "/sliced/nc/trials.csv"));        // not merged yet
  EXPECT_FALSE(fs::exists(dir + "/sliced/checks.csv"));           // no checks of half a run
  const test::CliRun second = slice(0);                            // completes nc, starts optimal
  ASSERT_EQ(second.rc, 0) << second.err;
  EXPECT_TRUE(fs::is_regular_file(dir + "/sliced/nc/trials.csv"));
  EXPECT_NE(second.err.find("sliced/optimal is done; 1 of 2"), std::string::npos) << second.err;
  const test::CliRun last = slice(1);
  ASSERT_EQ(last.rc, 0) << last.err;
  EXPECT_NE(last.out.find("9 of 9 checks pass"), std::string::npos) << last.out;
  for (const char* f : {"nc/trials.csv", "nc/summary.csv", "optimal/trials.csv", "optimal/summary.csv", "checks.csv"})
    EXPECT_EQ(test::read_file(dir + "/sliced/" + f), test::read_file(dir + "/whole/" + f)) << f;

  const auto expect_usage = [&](std::vector<std::string> extra, const std::string& says) {
    std::vector<std::string> args{"reproduce", "zdornov2009", "fig1", "--quick", "--out", dir + "/bad"};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::CliRun r = test::saturn_cli(args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  };
  expect_usage({"--shard", "0"}, "--shard I and --shards N go together");
  expect_usage({"--shard", "2", "--shards", "2"}, "--shard 2: expected 0 to 1");
  expect_usage({"--shard", "0", "--shards", "0"}, "--shards 0: expected 1 to 999");
}

// scripts/run_slices.sh: every slice of a figure of two runs (Zdornov Fig. 1) by two workers, each
// complete slice kept; a second machine takes the kept slices up and runs only the one missing; a
// kept slice of a commit whose golden results differ is run again, not taken up.
TEST(Reproduce, RunSlicesKeepsEachSliceAndTakesThemUpElsewhere) {
  const std::string dir = test::make_temp_dir("saturn_run_slices");
  const std::string env = "SATURN_BINARY=" + std::string(SATURN_BINARY) + " RUN_SLICES_KEPT=" + dir + "/kept ";
  const std::string script = test::source_path("scripts/run_slices.sh") + " zdornov2009 fig1 2 ";
  const auto run = [&](const std::string& out, const std::string& jobs) {
    return test::shell_output(env + "RUN_SLICES_OUT=" + dir + "/" + out + " " + script + jobs + " -- --quick 2>&1");
  };
  const test::ShellRun first = run("a", "2");
  ASSERT_EQ(first.status, 0) << first.out;
  EXPECT_NE(first.out.find("9 of 9 checks pass"), std::string::npos) << first.out;
  for (const char* run_dir : {"nc", "optimal"})
    for (const char* slice : {"000", "001"})
      EXPECT_TRUE(fs::is_regular_file(dir + "/kept/" + run_dir + "/trials.shard-" + slice + "-of-002.csv"))
          << run_dir << " " << slice;

  fs::remove(dir + "/kept/optimal/trials.shard-001-of-002.csv");
  fs::remove(dir + "/kept/optimal/manifest.shard-001-of-002.json");
  const test::ShellRun second = run("b", "1");
  ASSERT_EQ(second.status, 0) << second.out;
  // Slice 0 was taken up: its commands only merge what is there ("nothing to resume"); slice 1
  // runs once, for the run that lacks it.
  const auto count = [&](const std::string& what) {
    int n = 0;
    for (size_t at = second.out.find(what); at != std::string::npos; at = second.out.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("--shard 0 --shards 2"), count("nothing to resume")) << second.out;
  EXPECT_EQ(count("slice 1 of 2"), 1) << second.out;
  EXPECT_EQ(test::read_file(dir + "/b/checks.csv"), test::read_file(dir + "/a/checks.csv"));
  EXPECT_EQ(test::read_file(dir + "/b/optimal/trials.csv"), test::read_file(dir + "/a/optimal/trials.csv"));

  // A slice of another model: its manifest names a commit before the golden files existed.
  const std::string stale = dir + "/kept/nc/manifest.shard-000-of-002.json";
  std::string text = test::read_file(stale);
  const size_t at = text.find("\"git_commit\"");
  ASSERT_NE(at, std::string::npos);
  const size_t open = text.find('"', text.find(':', at)) + 1;
  text.replace(open, text.find('"', open) - open, "0000000000000000000000000000000000000000");
  std::ofstream(stale) << text;
  const test::ShellRun third = run("c", "1");
  ASSERT_EQ(third.status, 0) << third.out;
  EXPECT_NE(third.out.find("not taken up"), std::string::npos) << third.out;
  EXPECT_NE(third.out.find("slice 0 of 2"), std::string::npos) << third.out;
}

// A figure run again into the same directory replaces its runs (Santos used to stop there: "holds a
// complete run"); with --resume it keeps them. A run too short for the acceptance window is one
// clear line and exit 2, not a traceback. (1 ms of Fig. 2(a): well under a second a run.)
TEST(Reproduce, RunAgainReplacesOrResumesAndATooShortRunIsNamed) {
  const std::string out = test::make_temp_dir("saturn_reproduce") + "/fig2a";
  const std::vector<std::string> args{"reproduce", "santos2002", "fig2a", "--set", "simulation.trials=1",
                                      "--set", "simulation.duration_ns=1000000", "--out", out};
  const auto expect_window_error = [](const test::CliRun& r) {
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("before the end of the acceptance window [45, 58] ms"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("holds a complete run"), std::string::npos) << r.err;
  };
  expect_window_error(test::saturn_cli(args));
  const test::CliRun again = test::saturn_cli(args);
  expect_window_error(again);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;  // replaced: a new run
  const std::string manifest = test::read_file(out + "/manifest.json");
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const test::CliRun kept = test::saturn_cli(resume);
  expect_window_error(kept);
  EXPECT_NE(kept.err.find("already holds the complete run"), std::string::npos) << kept.err;
  EXPECT_EQ(test::read_file(out + "/manifest.json"), manifest);  // read as it was, not run again
}

}  // namespace
}  // namespace saturn
