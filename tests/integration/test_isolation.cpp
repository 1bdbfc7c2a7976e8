// Congestion isolation in the engine (docs/model/isolation.md): every queuing scheme with every
// technique keeps the per-cycle invariants (credits per VC with adapted packets leaving in the
// AFC, the detector's VOQ counts) on a 54-node RLFT with an incast, the ARN techniques detect
// roots and send ARNs, AFI adapts packets; and the fused step refuses isolation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/engine/engine.hpp"
#include "host/engine/model_setup.hpp"
#include "kernels/launch/engine_launch.hpp"
#include "tests/support/engine_helpers.hpp"

namespace saturn {
namespace {

// RLFT of 6-port switches (K = 3: 54 endpoints, 3 up ports per leaf), 4 KB packets of one flit,
// 24-packet input buffers; 10% of the nodes (5) send to endpoint 4 from cycle 0, the rest uniform
// at full load. CRT 2 us so that roots are declared within the run.
std::string isolation_toml(const std::string& technique, const std::string& scheme, const std::string& extra = "") {
  const bool afi = technique.size() > 4 && technique.substr(technique.size() - 4) == "_afi";
  const int vcs = (scheme == "1q" ? 1 : 3) + (afi ? 1 : 0);
  std::string t = "[topology]\nkind = \"rlft\"\nrlft_radix = 6\n[link]\nflit_bytes = 4096\nlatency_ns = 30\n"
                  "[endpoint]\nmtu_bytes = 4096\n[switch]\narbitration = \"round_robin\"\nvc_arbitration = \"round_robin\"\n"
                  "buffer_bytes = 98304\nvcs = " +
                  std::to_string(vcs) +
                  "\n[traffic]\nload = 1.0\nmessage_bytes = [4096]\npattern = \"hotspot_window\"\nhotspot_nodes = [4]\n"
                  "hotspot_fraction = 0.1\nhotspot_start_ns = 0\nhotspot_rate = 1.0\n"
                  "[isolation]\ntechnique = \"" +
                  technique + "\"\nqueue_scheme = \"" + scheme + "\"\n";
  if (technique.rfind("arn", 0) == 0) t += "crt_ns = 2000\narn_ttl_ns = 20000\n" + extra;
  return t;
}

Counters run(const std::string& toml, int trials, CpuStep step, int threads, uint32_t cycles) {
  std::vector<TrialSpec> specs;
  for (int t = 0; t < trials; ++t) specs.push_back(TrialSpec{0, t, trial_seed(11, 0, t), 1.0, 1.0});
  return test::run_engine(load_config_string(toml, "isolation"), ".", specs, step, threads, cycles);
}

uint64_t total(const std::vector<uint64_t>& x) {
  uint64_t s = 0;
  for (uint64_t v : x) s += v;
  return s;
}

// 17 trials (one 16-trial pack and one trial alone) give the same counters one trial at a time on
// one thread and in packs on two.
void expect_packs_match_scalar(const std::string& toml, const std::string& what) {
  test::expect_same_counters(run(toml, 17, CpuStep::kPhases, 1, 600), run(toml, 17, CpuStep::kPhasesPack16, 2, 600),
                             what + ": scalar vs packs");
}

const char* const kTechniques[] = {"dmodk", "oblivious", "adaptive_th", "adaptive_th_afi", "arn", "arn_afi"};
const char* const kSchemes[] = {"1q", "dbbm", "vftree", "flow2sl"};

// The same with the buffer shared (switch.vc_buffer = "shared": a minimum of one packet per VC, the
// rest a pool; kernels/state/credit_pool.hpp), whose books the invariants check; the packs agree
// with the scalar lanes on the schemes of most VCs.
TEST(Isolation, EverySchemeAndTechniqueKeepsTheInvariantsWithASharedBuffer) {
  for (const char* scheme : kSchemes)
    for (const char* technique : kTechniques) {
      SCOPED_TRACE(std::string(scheme) + " " + technique);
      std::string toml = isolation_toml(technique, scheme);
      toml.insert(toml.find("[switch]\n") + 9, "vc_buffer = \"shared\"\n");
      const Counters c = run(toml, 2, CpuStep::kPhases, 1, 1000);
      EXPECT_EQ(total(c.violations), 0u);
      EXPECT_GT(total(c.del_packets), 2u * 54u * 50u) << "the network must carry traffic";
      const std::string tech = technique;
      if (std::string(scheme) == "flow2sl" && (tech == "arn_afi" || tech == "adaptive_th_afi"))
        expect_packs_match_scalar(toml, std::string(scheme) + " " + technique + " shared");
    }
}

TEST(Isolation, EverySchemeAndTechniqueKeepsTheInvariants) {
  for (const char* scheme : kSchemes)
    for (const char* technique : kTechniques) {
      SCOPED_TRACE(std::string(scheme) + " " + technique);
      const Counters c = run(isolation_toml(technique, scheme), 2, CpuStep::kPhases, 1, 1000);
      EXPECT_EQ(total(c.violations), 0u);
      EXPECT_GT(total(c.del_packets), 2u * 54u * 50u) << "the network must carry traffic";
      const std::string tech = technique;
      if (tech == "dmodk") {
        EXPECT_EQ(total(c.adapted), 0u);
      } else if (tech != "oblivious") {
        // The incast fills the hot leaf's buffers: Adaptive-Th re-routes; ARN detects roots, sends ARNs.
        if (tech.rfind("adaptive", 0) == 0) EXPECT_GT(total(c.adapted), 0u);
        if (tech.rfind("arn", 0) == 0) EXPECT_GT(total(c.arn_sent), 0u);
      }
    }
}

// R3 (incast ARNs consumed at the first upward switch): under ARN + AFI the hot flows are adapted.
TEST(Isolation, IncastReadingR3AdaptsTheHotFlowsIntoTheAfc) {
  const Counters r1 = run(isolation_toml("arn_afi", "1q"), 2, CpuStep::kPhases, 1, 3000);
  const Counters r3 = run(isolation_toml("arn_afi", "1q", "incast_reading = \"r3\"\n"), 2, CpuStep::kPhases, 1, 3000);
  EXPECT_EQ(total(r1.violations) + total(r3.violations), 0u);
  EXPECT_GT(total(r3.adapted), 100u) << "R3: the source leaves consume the incast ARN and adapt the hot flows";
  EXPECT_GT(total(r3.adapted), total(r1.adapted));
}

// §P1.9-6, the text's reading: adapted packets (in the AFC) match the entries of their original VC
// (vFtree: 0-2, recovered from source and destination) and send ARNs upstream for stored ones, so
// more ARNs flow than under the pseudo-code, where only unadapted packets propagate; same bits
// for one trial at a time and 16-trial packs.
TEST(Isolation, TextReadingLetsAdaptedPacketsPropagateArns) {
  const std::string base = "incast_reading = \"r3\"\n";
  const Counters code = run(isolation_toml("arn_afi", "vftree", base), 2, CpuStep::kPhases, 1, 3000);
  const std::string toml = isolation_toml("arn_afi", "vftree", base + "adapted_arns = \"text\"\n");
  const Counters text = run(toml, 2, CpuStep::kPhases, 1, 3000);
  EXPECT_EQ(total(code.violations) + total(text.violations), 0u);
  EXPECT_GT(total(text.adapted), 100u);
  EXPECT_GT(total(text.arn_sent), total(code.arn_sent) + 100u)
      << "adapted packets must find their original VC's stored entries and send ARNs";
  expect_packs_match_scalar(toml, "text reading");
}

// The schemes' source-mixing options (isolation.flow2sl_source, isolation.vftree_source; the unit
// tests hold the formulas): another VC per packet, so other counters, with the invariants kept; and
// each key is refused under another scheme.
TEST(Isolation, SourceMixingMappingsChangeTheVcsAndNeedTheirScheme) {
  const Counters base = run(isolation_toml("dmodk", "flow2sl"), 2, CpuStep::kPhases, 1, 1000);
  const Counters mixed = run(isolation_toml("dmodk", "flow2sl") + "flow2sl_source = true\n", 2, CpuStep::kPhases, 1, 1000);
  const Counters dst_only = run(isolation_toml("dmodk", "vftree") + "vftree_source = false\n", 2, CpuStep::kPhases, 1, 1000);
  EXPECT_EQ(total(mixed.violations) + total(dst_only.violations), 0u);
  EXPECT_NE(base.del_packets, mixed.del_packets) << "(src + dst group) mod 3 should move packets to other VCs";
  EXPECT_GT(total(dst_only.del_packets), 2u * 54u * 50u);
  EXPECT_THROW(run(isolation_toml("dmodk", "dbbm") + "flow2sl_source = true\n", 1, CpuStep::kPhases, 1, 10), ConfigError);
  EXPECT_THROW(run(isolation_toml("dmodk", "1q") + "vftree_source = false\n", 1, CpuStep::kPhases, 1, 10), ConfigError);
}

TEST(Isolation, AfcKeysNeedArnAfi) {
  for (const char* key : {"adapted_arns = \"text\"\n", "detector_vcs = \"regular\"\n"})
    EXPECT_THROW(run(isolation_toml("arn", "1q", key), 1, CpuStep::kPhases, 1, 10), ConfigError) << key;
}

// isolation.detector_vcs = "regular": once the hot flows sit in the AFC, the hot node's own port
// sees only its VC 0 VOQs, which drain, so it stops re-announcing the root; with the AFC watched
// it keeps the root and its ARNs. Invariants hold and the 16-trial packs give the same bits.
TEST(Isolation, DetectorVcsRegularDoesNotWatchTheAfc) {
  const std::string base = "incast_reading = \"r3\"\n";
  const Counters all = run(isolation_toml("arn_afi", "1q", base), 2, CpuStep::kPhases, 1, 3000);
  const std::string toml = isolation_toml("arn_afi", "1q", base + "detector_vcs = \"regular\"\n");
  const Counters regular = run(toml, 2, CpuStep::kPhases, 1, 3000);
  EXPECT_EQ(total(all.violations) + total(regular.violations), 0u);
  EXPECT_GT(total(regular.adapted), 100u) << "the VC 0 root is still found before the flows are adapted";
  EXPECT_LT(total(regular.arn_sent), total(all.arn_sent)) << "measured 10,937 against 13,680";
  expect_packs_match_scalar(toml, "detector_vcs regular");
}

// The per-VC diagnostic (voq_packets[VC]): with a CRT longer than the run no root is declared, so
// nothing waits for the AFC and VC 0 holds the incast tree; under R3 with the 2 us CRT the hot
// flows are adapted, and the AFC holds packets at the end of the run. Same bits in 16-trial packs.
TEST(Isolation, VoqPacketsPerVcShowWhereTheTreeSits) {
  std::string quiet = isolation_toml("arn_afi", "1q");
  quiet.replace(quiet.find("crt_ns = 2000"), 13, "crt_ns = 5e6");
  const Counters none = run(quiet, 2, CpuStep::kPhases, 1, 3000);
  const std::string toml = isolation_toml("arn_afi", "1q", "incast_reading = \"r3\"\n");
  const Counters r3 = run(toml, 2, CpuStep::kPhases, 1, 3000);
  ASSERT_EQ(none.voq_vc.size(), 4u);  // 2 VCs x 2 trials, [at(vc, t)]
  ASSERT_EQ(r3.voq_vc.size(), 4u);
  EXPECT_EQ(total(none.adapted), 0u);
  for (int t = 0; t < 2; ++t) {
    EXPECT_GT(none.voq_vc[at(0, t, 2)], 20u) << "the incast tree fills VC 0";
    EXPECT_EQ(none.voq_vc[at(1, t, 2)], 0u) << "nothing adapted, nothing for the AFC";
    EXPECT_GT(r3.voq_vc[at(1, t, 2)], 0u) << "R3 moves the hot flows into the AFC";
  }
  expect_packs_match_scalar(toml, "voq_packets");
}

TEST(Isolation, FusedStepIsRefused) {
  EXPECT_THROW(run(isolation_toml("arn_afi", "dbbm"), 1, CpuStep::kFused, 1, 10), std::invalid_argument);
}

// Step identity (the same bits for one trial at a time, 16-trial packs, one or two threads).
class IsolationStepIdentity : public ::testing::TestWithParam<const char*> {};

TEST_P(IsolationStepIdentity, ScalarPhasesAndPacksAgree) {
  const std::string technique = GetParam();
  // vFtree with the AFI techniques (4 VCs), 1Q with the others; R3 so that incast ARNs are consumed.
  const std::string scheme = technique.find("afi") != std::string::npos ? "vftree" : "1q";
  const std::string extra = technique.rfind("arn", 0) == 0 ? "incast_reading = \"r3\"\n" : "";
  const std::string toml = isolation_toml(technique, scheme, extra);
  // 17 trials: one 16-trial pack and a remainder that runs one trial at a time.
  const Counters scalar = run(toml, 17, CpuStep::kPhases, 1, 600);
  const Counters packs = run(toml, 17, CpuStep::kPhasesPack16, 2, 600);
  const Counters scalar2 = run(toml, 17, CpuStep::kPhases, 2, 600);
  EXPECT_EQ(total(scalar.violations) + total(packs.violations), 0u);
  if (technique != "dmodk" && technique != "oblivious") EXPECT_GT(total(scalar.adapted), 0u) << technique;
  test::expect_same_counters(scalar, packs, technique + " " + scheme + ": scalar vs 16-lane packs");
  test::expect_same_counters(scalar, scalar2, technique + " " + scheme + ": 1 vs 2 threads");
}

INSTANTIATE_TEST_SUITE_P(Techniques, IsolationStepIdentity, ::testing::ValuesIn(kTechniques),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace saturn
