// State dumps: the host reads a StateSnapshot with the kernels' own index helpers, so a dump shows
// the state exactly as the step sees it (VOQ FIFOs walked from their heads, credits, outputs).
#include "host/io/state_dump.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "kernels/common/index.hpp"
#include "kernels/isolation/afi.hpp"
#include "kernels/isolation/arn_table.hpp"
#include "kernels/isolation/detector.hpp"
#include "kernels/state/output_queue.hpp"
#include "kernels/state/voq.hpp"

namespace saturn {
namespace {

std::ofstream open_csv(const std::string& path, const std::string& header) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write the state dump " + path);
  f << header << "\n";
  return f;
}

std::string peer_name(const Topology& topo, int s, int p) {
  const PortPeer& peer = topo.ports[s][p];
  if (peer.kind == PeerKind::kSwitch) return topo.switch_names[peer.index] + ":" + std::to_string(peer.port);
  if (peer.kind == PeerKind::kEndpoint) return topo.endpoint_names[peer.index];
  return "";
}

// Cycles from now until `until` (0 once it has passed).
uint32_t left(uint32_t until, uint32_t now) { return until > now ? until - now : 0; }

// The entries of FIFO (gp, o, vc), head first. The walk stops after the pool's size, so a corrupt
// link (which check_invariants reports) cannot loop.
std::vector<int> fifo_entries(const EngineView& v, int gp, int o, int vc, int t) {
  std::vector<int> out;
  const int T = v.model.trials;
  const uint32_t ends = v.state.voq_ends[at(voq_index(v.model, gp, o, vc), t, T)];
  int e = static_cast<int>(ends & 0xFFFFu);
  const int limit = port_entries(v, gp);
  while (e != kNoEntry && static_cast<int>(out.size()) < limit) {
    out.push_back(e);
    e = v.state.ent_next[at(entry_index(v, gp, e), t, T)];
  }
  return out;
}

void packet_fields(std::ostream& f, const Packet& pk) {
  f << pk.src() << "," << pk.dst() << "," << pk.size_flits() << "," << pk.vc() << ",0x" << std::hex << pk.flags()
    << std::dec << "," << pk.inject_cycle << "," << pk.birth_cycle;
}

}  // namespace

std::string state_dump_prefix(const std::string& dir, int point, int trial, double time_ns) {
  std::ostringstream name;
  name << dir << "/p" << point << "_t" << trial << "_" << std::llround(time_ns) << "ns";
  return name.str();
}

std::vector<std::string> write_state_dump(const StateSnapshot& snap, int t, const Topology& topo,
                                          const std::string& prefix) {
  const EngineView& v = snap.view;
  const ModelParams& m = v.model;
  const int T = m.trials, V = m.vcs;
  const uint32_t now = snap.cycle;
  const bool iso = iso_arn(m.iso);
  std::vector<std::string> files;

  // Every buffered packet: in an input's VOQ FIFO (position 0 = head), being sent (position -1,
  // off its FIFO until its tail has left) or in an output queue (CIOQ).
  {
    const std::string path = prefix + "_packets.csv";
    std::ofstream f = open_csv(path, "switch,input,output,vc,where,position,src,dst,flits,packet_vc,flags,"
                                     "inject_cycle,birth_cycle,ready_cycle");
    for (int s = 0; s < v.net.num_switches; ++s) {
      const int base = v.net.sw_port_base[s], radix = v.net.sw_port_base[s + 1] - base;
      for (int i = 0; i < radix; ++i) {
        const int gp = base + i;
        for (int o = 0; o < radix; ++o)
          for (int vc = 0; vc < V; ++vc) {
            const std::vector<int> entries = fifo_entries(v, gp, o, vc, t);
            for (size_t k = 0; k < entries.size(); ++k) {
              const int64_t ei = at(entry_index(v, gp, entries[k]), t, T);
              f << topo.switch_names[s] << "," << i << "," << o << "," << vc << ",voq," << k << ",";
              packet_fields(f, v.state.ent_pkt[ei]);
              f << "," << v.state.ent_time[ei] << "\n";
            }
          }
      }
      for (int o = 0; o < radix; ++o) {
        const int go = base + o;
        const uint32_t src = v.state.out_src[at(go, t, T)];
        if (src != kNoSource) {
          const int i = static_cast<int>(src >> 16), e = static_cast<int>(src & 0xFFFFu);
          const int64_t ei = at(entry_index(v, base + i, e), t, T);
          const Packet& pk = v.state.ent_pkt[ei];
          f << topo.switch_names[s] << "," << i << "," << o << "," << pk.vc() << ",sending,-1,";
          packet_fields(f, pk);
          f << "," << v.state.ent_time[ei] << "\n";
        }
        if (!cioq_on(m)) continue;
        for (int vc = 0; vc < V; ++vc)
          for (uint32_t k = 0; k < oq_length(v, go, vc, t); ++k) {
            f << topo.switch_names[s] << ",," << o << "," << vc << ",output_queue," << k << ",";
            packet_fields(f, oq_at(v, go, vc, k, t));
            f << ",\n";
          }
      }
    }
    files.push_back(path);
  }

  // Per switch port and VC: the input's side (packets and flits in its VOQs) and the output's
  // (packets of this switch's inputs waiting for it, credits, busy time, output queue).
  {
    const std::string path = prefix + "_ports.csv";
    std::ofstream f = open_csv(path, std::string("switch,port,peer,stage,up,vc,in_packets,in_flits,out_waiting,"
                                                 "out_credits,out_busy_left,out_sending_from,out_queue") +
                                         (iso ? ",root,crt_left,roots_declared,voq_packets_to" : ""));
    for (int s = 0; s < v.net.num_switches; ++s) {
      const int base = v.net.sw_port_base[s], radix = v.net.sw_port_base[s + 1] - base;
      for (int p = 0; p < radix; ++p) {
        const int gp = base + p;
        for (int vc = 0; vc < V; ++vc) {
          int in_packets = 0, waiting = 0;
          int64_t in_flits = 0;
          for (int o = 0; o < radix; ++o)
            for (int e : fifo_entries(v, gp, o, vc, t)) {
              ++in_packets;
              in_flits += v.state.ent_pkt[at(entry_index(v, gp, e), t, T)].size_flits();
            }
          for (int i = 0; i < radix; ++i) waiting += static_cast<int>(fifo_entries(v, base + i, p, vc, t).size());
          const uint32_t src = v.state.out_src[at(gp, t, T)];
          f << topo.switch_names[s] << "," << p << "," << peer_name(topo, s, p) << ","
            << static_cast<int>(v.net.sw_stage[s]) << "," << static_cast<int>(v.net.port_up[gp]) << "," << vc << "," << in_packets
            << "," << in_flits << "," << waiting << "," << v.state.out_credits[at(static_cast<int64_t>(gp) * V + vc, t, T)]
            << "," << left(v.state.out_busy_until[at(gp, t, T)], now) << ","
            << (src == kNoSource ? std::string() : std::to_string(src >> 16)) << ","
            << (cioq_on(m) ? oq_length(v, gp, vc, t) : 0u);
          if (iso) {
            const DetectorState& d = v.state.det_state[at(gp, t, T)];
            int to_here = 0;  // packets of this switch's inputs for output gp on VC vc (the detector's count)
            for (int i = 0; i < radix; ++i) to_here += v.state.voq_packets[at(voq_index(m, base + i, p, vc), t, T)];
            f << "," << static_cast<int>(d.root) << ","
              << (d.crt_start == kNoTimer ? std::string() : std::to_string(d.crt_start)) << ","
              << v.state.det_arn_count[at(gp, t, T)] << "," << to_here;
          }
          f << "\n";
        }
      }
    }
    files.push_back(path);
  }

  // Endpoints: the source queue, the NIC's link and credits, what went in and came out.
  {
    std::string header = "endpoint,switch,port,source_queue,send_queues_busy,nic_busy_left";
    for (int vc = 0; vc < V; ++vc) header += ",credits_vc" + std::to_string(vc);
    std::ofstream f = open_csv(prefix + "_endpoints.csv", header + ",injected_packets,delivered_packets");
    for (int e = 0; e < v.net.num_endpoints; ++e) {
      int busy = 0;
      for (int a = 0; a < m.active_queues; ++a)
        busy += v.state.act_left[at(static_cast<int64_t>(e) * m.active_queues + a, t, T)] != 0 ? 1 : 0;
      f << topo.endpoint_names[e] << "," << topo.switch_names[topo.endpoint_switch[e]] << "," << topo.endpoint_port[e]
        << "," << v.state.q_count[at(e, t, T)] << "," << busy << "," << left(v.state.ep_busy_until[at(e, t, T)], now);
      for (int vc = 0; vc < V; ++vc) f << "," << v.state.ep_credits[at(static_cast<int64_t>(e) * V + vc, t, T)];
      f << "," << v.state.st_inj_packets[at(e, t, T)] << "," << v.state.st_del_packets[at(e, t, T)] << "\n";
    }
    files.push_back(prefix + "_endpoints.csv");
  }

  // ARN tables: every valid entry of every switch.
  if (iso) {
    const std::string path = prefix + "_arn.csv";
    std::ofstream f = open_csv(path, "switch,entry,destination,port,vc,arn_id,root_info,consumed,alt_port,"
                                     "expires_in,arn_sent_mask");
    const int E = m.iso.arn_entries;
    for (int s = 0; s < v.net.num_switches; ++s)
      for (int i = 0; i < E; ++i) {
        const ArnEntry& a = v.state.arn_entry[at(static_cast<int64_t>(s) * E + i, t, T)];
        if (!a.valid) continue;
        f << topo.switch_names[s] << "," << i << "," << a.info.destination << "," << static_cast<int>(a.info.port) << ","
          << static_cast<int>(a.info.vc) << "," << a.info.arn_id << "," << static_cast<int>(a.info.root_info) << ","
          << static_cast<int>(a.info.consumed) << ","
          << (a.alt_port == kNoPort ? std::string() : std::to_string(a.alt_port)) << ","
          << static_cast<int64_t>(a.expires_at) - static_cast<int64_t>(now) << ",0x" << std::hex << a.arn_sent_mask
          << std::dec << "\n";
      }
    files.push_back(path);
  }
  return files;
}

}  // namespace saturn
