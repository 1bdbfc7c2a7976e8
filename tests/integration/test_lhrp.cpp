// The speculative protocols in the packet engine (Jiang, Dennison & Dally 2015: LHRP §3.2, M34;
// LHRP with fabric drop §6.1, M35; SMSRP §3.1, M33; cc.protocol, kernels/reservation/lhrp_engine.hpp)
// on a 72-node dragonfly (p = 2, a = 4, h = 2, g = 9) with 001's links (50 ns local, 1 us global),
// buffers, PAR and ACKs (configs/papers/jiang2015/):
//   - the NACK's time survives its 20-bit encoding on either side of the arrival;
//   - without a drop LHRP is the baseline, bit for bit (uniform traffic far below the threshold);
//   - on the 60:4 hot spot at 15x over-subscription LHRP delivers each hot spot at its full
//     ejection rate and keeps network latency flat, while the baseline's latency rises with the
//     saturation tree (item 15's shape; item 16's >= 0.95); with fabric drop its latency is no
//     higher; SMSRP pays a reservation and a grant per drop;
//   - every packet gets through: a finite incast drops, NACKs and resends under each protocol and
//     completes with every packet delivered once; invariants (credits exact with the NACK in the
//     dropped packet's space, packets conserved) hold every cycle;
//   - the transient of Fig. 6 (item 17): the victims' message latency (stats.victim_latency) rises
//     with the baseline's saturation tree and barely moves under LHRP;
//   - bad combinations are one-line errors naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/engine/model_setup.hpp"
#include "kernels/reservation/lhrp_engine.hpp"
#include "tests/support/config_errors.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

using namespace saturn::test;

const std::vector<std::string> kSmall = {"topology.dragonfly_p=2", "topology.dragonfly_a=4", "topology.dragonfly_h=2",
                                         "topology.dragonfly_g=9", "simulation.check_invariants=true"};

StudyResult run_jiang(const char* config, std::vector<std::string> extra) {
  extra.insert(extra.begin(), kSmall.begin(), kSmall.end());
  return run_file(source_path(std::string("configs/papers/jiang2015/") + config), extra);
}

TEST(Lhrp, NackTimeDecodesAroundTheArrival) {
  for (const uint32_t now : {5u, 1000u, 1u << 20, 0xFFFFFF00u}) {
    for (const int64_t ahead : {-300000, -1, 0, 1, 24, 400000}) {
      const uint32_t time = now + static_cast<uint32_t>(ahead);
      const uint32_t word = lhrp_nack_word(time, 24);
      EXPECT_EQ(lhrp_nack_size(word), 24u);
      EXPECT_EQ(lhrp_nack_decode_time(word, now), time) << now << " " << ahead;
    }
  }
}

TEST(Lhrp, WithoutDropsItIsTheBaselineBitForBit) {
  const std::vector<std::string> run = {"simulation.trials=2", "simulation.warmup_ns=3000", "simulation.duration_ns=5000",
                                        "sweep.traffic.load=[0.4]", "simulation.check_invariants=false"};
  std::vector<std::string> lhrp = run;
  lhrp.push_back("cc.protocol=\"lhrp\"");
  const StudyResult base = run_jiang("baseline_uniform.toml", run);
  const StudyResult spec = run_jiang("baseline_uniform.toml", lhrp);
  ASSERT_EQ(base.trials.size(), spec.trials.size());
  for (size_t t = 0; t < base.trials.size(); ++t) {
    EXPECT_EQ(metric_of(spec.trials[t], "dropped_packets"), 0.0);
    for (const char* m : {"throughput_per_node", "net_latency_mean_ns", "msg_latency_p99_ns", "packets_delivered",
                          "control_packets", "packets_in_flight"})
      EXPECT_EQ(metric_of(spec.trials[t], m), metric_of(base.trials[t], m)) << m;
  }
}

// 60 sources to 4 hot spots; source load 1/30 = 0.5x and 1.0 = 15x over-subscription of each hot
// spot; 20 us warm-up and 20 us window (the preview of docs/jiang2015.md, on 72 nodes).
TEST(Lhrp, HotSpotLatencyStaysFlatAtTheFullEjectionRate) {
  const std::vector<std::string> run = {"simulation.trials=1", "simulation.warmup_ns=20000",
                                        "simulation.duration_ns=20000", "sweep.traffic.load=[0.033333, 1.0]",
                                        "simulation.check_invariants=false"};  // (the incast test checks them)
  std::vector<std::string> lhrp = run;
  lhrp.push_back("cc.protocol=\"lhrp\"");
  const StudyResult base = run_jiang("baseline_hotspot_60_4.toml", run);
  const StudyResult spec = run_jiang("baseline_hotspot_60_4.toml", lhrp);
  const auto at = [](const StudyResult& r, int point, const char* m) { return metric_of(r.trials[point], m); };
  ASSERT_EQ(spec.trials.size(), 2u);
  const double per_hot_spot = 72.0 / 4.0;  // throughput_per_node x N / hot spots
  // Item 16: accepted per hot spot >= 0.95 of its ejection channel at 15x (measured 1.000).
  EXPECT_GE(at(spec, 1, "throughput_per_node") * per_hot_spot, 0.95);
  EXPECT_GT(at(spec, 1, "dropped_packets"), 0.0);
  EXPECT_GT(at(spec, 1, "retransmitted_packets"), 0.0);
  // Item 15's shape: LHRP's latency at 15x within 2.5x of its latency at 0.5x (measured 1.97x: 1,944
  // against 986 ns), the baseline's over 5x (measured 14.6x: its saturation tree).
  EXPECT_LT(at(spec, 1, "net_latency_mean_ns"), 2.5 * at(spec, 0, "net_latency_mean_ns"));
  EXPECT_GT(at(base, 1, "net_latency_mean_ns"), 5.0 * at(base, 0, "net_latency_mean_ns"));
  for (const StudyResult* r : {&base, &spec})
    for (const auto& t : r->trials) EXPECT_EQ(metric_of(t, "deadlocked"), 0.0);
}

// 12 sources send 48 KB each (20 packets of 24 flits) to one endpoint. LHRP with a threshold of
// one packet drops most of the first wave at the last hop and resends at booked times; with fabric
// drop and under SMSRP the packets queued over 1 us are dropped too (under SMSRP only those, few
// here: measured 7; they are reserved at the destination NIC and resent at the granted time). Each completes with every
// packet delivered once and every invariant held every cycle.
TEST(Lhrp, AFiniteIncastCompletesWithEveryByteOnce) {
  std::string flows = "traffic.flows=[";
  for (int s = 0; s < 12; ++s) flows += (s ? "," : "") + std::string("{src=") + std::to_string(8 + 5 * s) + ",dst=3,bytes=48000}";
  flows += "]";
  for (const char* protocol : {"lhrp", "lhrp_fabric_drop", "smsrp"}) {
    std::vector<std::string> sets{"simulation.trials=1", "simulation.warmup_ns=0", "simulation.duration_ns=200000",
                                  "simulation.time_limit_ns=200000", "sweep.traffic.load=[0.5]", "traffic.pattern=\"flows\"",
                                  flows, std::string("cc.protocol=\"") + protocol + "\"", "cc.lhrp_outstanding=8"};
    // (SMSRP has no last-hop threshold: the key does not apply to it, issue 65 item 6)
    if (std::string(protocol) != "smsrp") sets.push_back("cc.lhrp_threshold_flits=24");
    const StudyResult r = run_jiang("baseline_uniform.toml", sets);
    for (const auto& t : r.trials) {
      EXPECT_EQ(metric_of(t, "invariant_violations"), 0.0) << protocol;
      EXPECT_GT(metric_of(t, "dropped_packets"), std::string(protocol) == "smsrp" ? 0.0 : 12.0) << protocol;
      EXPECT_EQ(metric_of(t, "dropped_packets"), metric_of(t, "nack_packets")) << protocol;
      EXPECT_EQ(metric_of(t, "dropped_packets"), metric_of(t, "retransmitted_packets")) << protocol;
      EXPECT_EQ(metric_of(t, "packets_delivered"), 12.0 * 20.0) << protocol;  // each packet once
      EXPECT_EQ(metric_of(t, "packets_in_flight"), 0.0) << protocol;
      EXPECT_FALSE(std::isnan(metric_of(t, "completion_time_ns"))) << protocol;
      // 240 packets of 24 flits through one ejection channel: at least 5,760 ns.
      EXPECT_GE(metric_of(t, "completion_time_ns"), 5760.0) << protocol;
      if (std::string(protocol) == "smsrp") {  // one reservation and one grant per drop
        EXPECT_EQ(metric_of(t, "reservation_packets"), metric_of(t, "dropped_packets"));
        EXPECT_EQ(metric_of(t, "grant_packets"), metric_of(t, "dropped_packets"));
      }
    }
  }
}

// The 60:4 hot spot at 2x and 15x on 72 nodes (as HotSpotLatencyStaysFlatAtTheFullEjectionRate).
// LHRP with fabric drop also drops what queues over 1 us before the last hop: each hot spot still
// at its full rate, latency at 15x within 10% of LHRP's (measured 2,065 against 2,005 ns; 001 §6.1
// has it lower past ~7x, where LHRP's own latency rises: here it does not, docs/jiang2015.md fig9).
// SMSRP pays a reservation and a grant per drop at the hot spot's ejection channel: below the full
// rate, its latency rising with the load (001: SMSRP tends to SRP as drops grow).
TEST(Lhrp, FabricDropAndSmsrpOnTheHotSpot) {
  const auto run = [](const char* protocol) {
    return run_jiang("baseline_hotspot_60_4.toml",
                     {"simulation.trials=1", "simulation.warmup_ns=20000", "simulation.duration_ns=20000",
                      "sweep.traffic.load=[0.133333, 1.0]", "simulation.check_invariants=false",
                      std::string("cc.protocol=\"") + protocol + "\""});
  };
  const StudyResult lhrp = run("lhrp"), fd = run("lhrp_fabric_drop"), smsrp = run("smsrp");
  const auto at = [](const StudyResult& r, int point, const char* m) { return metric_of(r.trials[point], m); };
  EXPECT_LT(at(fd, 1, "net_latency_mean_ns"), 1.1 * at(lhrp, 1, "net_latency_mean_ns"));
  EXPECT_GT(at(fd, 1, "dropped_packets"), 0.0);
  EXPECT_GE(at(fd, 1, "throughput_per_node") * 18.0, 0.95);
  EXPECT_GT(at(smsrp, 1, "reservation_packets"), 0.0);
  EXPECT_LT(at(smsrp, 1, "throughput_per_node") * 18.0, 0.95);
  EXPECT_GT(at(smsrp, 1, "net_latency_mean_ns"), at(smsrp, 0, "net_latency_mean_ns"));
}

std::string error_of(const char* config, std::vector<std::string> sets) {
  return test::model_error([&] { return load_config_file(source_path(std::string("configs/") + config), sets); });
}

double series_value(const SeriesSample& s, const std::string& name) {
  for (const auto& m : s.metrics)
    if (m.name == name) return m.value;
  return std::nan("");
}

// The victims' message latency in 2 us bins around a hot spot's onset (the transient of 001 Fig. 6,
// item 17, at 72 nodes): mean over the bins ending at or before the onset (20 us) and after it.
struct Transient {
  double before = 0, after = 0;
};

Transient victim_transient(const char* config, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"simulation.trials=1", "simulation.duration_ns=60000", "simulation.check_invariants=false",
                               "traffic.hotspot_nodes=[27]", "traffic.hotspot_fraction=0.1111", "traffic.hotspot_rate=1.0"});
  const StudyResult r = run_jiang(config, extra);
  Transient x;
  int nb = 0, na = 0;
  for (const SeriesSample& s : r.series) {
    const double v = series_value(s, "victim_msg_latency_mean_ns");
    EXPECT_FALSE(std::isnan(v)) << s.time_ns;
    if (s.time_ns <= 20000.0) {
      x.before += v;
      ++nb;
    } else {
      x.after += v;
      ++na;
    }
    // before the hot spot starts every delivered message is a victim's
    if (s.time_ns <= 20000.0) EXPECT_EQ(v, series_value(s, "msg_latency_mean_ns")) << s.time_ns;
  }
  EXPECT_EQ(nb, 10);
  EXPECT_EQ(na, 20);
  x.before /= nb;
  x.after /= na;
  return x;
}

// 72 nodes: 8 hot sources at full rate to one hot spot (8x), 63 victims at 40% among themselves.
// The baseline's saturation tree reaches the victims: their mean latency after the onset is over
// 2x the mean before it (measured 975 -> 3,037 ns; item 17(b)'s ">= 2x"). Under LHRP with the
// NIC's default source limit (cc.lhrp_outstanding = 1024: a hot source stops at 1024 speculative
// packets unanswered) it rises by less than item 17(a)'s 100 ns (measured +76 ns; 001: < 50 ns).
TEST(Lhrp, VictimsBarelyNoticeTheHotSpotUnderLhrp) {
  const Transient base = victim_transient("transient_baseline.toml");
  const Transient lhrp = victim_transient("transient_lhrp.toml", {"cc.lhrp_outstanding=1024"});
  EXPECT_GT(base.after, 2.0 * base.before) << "baseline " << base.before << " -> " << base.after;
  EXPECT_LT(lhrp.after - lhrp.before, 100.0) << "LHRP " << lhrp.before << " -> " << lhrp.after;
  EXPECT_NEAR(lhrp.before, base.before, 1e-9) << "the same victims before the onset";
}

// The same with the config's own sources, 001's unbounded ones (cc.lhrp_outstanding = 65535): the
// victims rise by +616 ns, a miss of item 17(a) (< 100 ns; 001: < 50 ns) at this size. Isolated
// (docs/jiang2015.md, "Why LHRP's victims suffer at reduced size"): the 8 hot sources offer 8 flits a
// cycle of speculative packets to a last-hop switch that this small dragonfly feeds by 5 channels
// (a - 1 = 3 local, h = 2 global), so those channels saturate and a tree of speculative packets,
// dropped only once they reach the last hop, grows upstream through the victims' paths (a state dump
// at 50 us: 9,608 packets buffered against 917 with the limit). A regression check of the measured
// value; 001's Fig. 6 offers 7.5 flits a cycle to each last-hop switch with 11 channels in.
TEST(Lhrp, VictimsUnderLhrpWithUnboundedSourcesAtReducedSize) {
  const Transient lhrp = victim_transient("transient_lhrp.toml");
  const double rise = lhrp.after - lhrp.before;
  EXPECT_GT(rise, 500.0) << "LHRP, unbounded sources: " << lhrp.before << " -> " << lhrp.after
                         << " (was +616 ns; item 17(a) asks < 100, 001 < 50: update the docs if it now passes)";
  EXPECT_LT(rise, 750.0) << "LHRP, unbounded sources: " << lhrp.before << " -> " << lhrp.after
                         << " (was +616 ns; item 17(a) asks < 100, 001 < 50)";
}

// Unbounded sources whose speculative traffic the channels into the last-hop switch can carry (8 hot
// sources at 50%: 4 flits a cycle over 5 channels, the hot spot still 4x over-subscribed): the
// victims rise by less than item 17(a)'s 100 ns (measured +80 ns; at 40%, +54). The mechanism
// holds without the source limit where its upstream channels are not over-subscribed.
TEST(Lhrp, VictimsBarelyNoticeAHotSpotTheLastHopChannelsCarry) {
  const Transient lhrp = victim_transient("transient_lhrp.toml", {"traffic.hotspot_rate=0.5"});
  EXPECT_LT(lhrp.after - lhrp.before, 100.0) << "LHRP, unbounded sources at 50%: " << lhrp.before << " -> " << lhrp.after;
}

TEST(Lhrp, VictimLatencyNeedsTheHotspotWindow) {
  EXPECT_NE(error_of("papers/jiang2015/baseline_uniform.toml", {"stats.victim_latency=true"}).find("stats.victim_latency"),
            std::string::npos);
}

TEST(Lhrp, BadCombinationsNameTheirKey) {
  const char* df = "papers/jiang2015/baseline_uniform.toml";
  EXPECT_EQ(error_of(df, {"cc.protocol=\"lhrp\""}), "");
  EXPECT_NE(error_of("default.toml", {"cc.protocol=\"lhrp\""}).find("topology.kind"), std::string::npos);
  EXPECT_NE(error_of(df, {"cc.protocol=\"lhrp\"", "cc.acks=false", "switch.vcs=4", "cc.ack_vc=-1"}).find("cc.acks"), std::string::npos);
  EXPECT_NE(error_of(df, {"cc.protocol=\"lhrp\"", "cc.ack_vc=2"}).find("cc.ack_vc"), std::string::npos);
  EXPECT_NE(error_of(df, {"cc.protocol=\"lhrp\"", "cc.ack_bytes=200"}).find("cc.ack_bytes"), std::string::npos);
  EXPECT_NE(error_of(df, {"cc.protocol=\"lhrp\"", "cc.response=\"aimd\""}).find("cc.response"), std::string::npos);
  EXPECT_EQ(error_of(df, {"cc.protocol=\"srp\""}), "");
  EXPECT_EQ(error_of(df, {"cc.protocol=\"smsrp\""}), "");
  EXPECT_NE(error_of(df, {"cc.protocol=\"smsrp\"", "cc.marking=\"naive\""}).find("cc.marking"), std::string::npos);
}

}  // namespace
}  // namespace saturn
