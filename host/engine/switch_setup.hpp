// Config -> model for the switches and links (docs/model/switch.md): link delays, input buffers
// and VCs, packet entries, speedup and arbitration, output queues, the allocator. The dragonfly's
// per-class links and buffers are in fabric_setup.hpp. Called by build_model (model_setup.cpp) at
// the points noted; each failure is one ConfigError naming its key.
#pragma once
#include <cstdint>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {

// link.latency_ns (and the dragonfly's link classes), switch.router_delay_ns: after the cycle.
void setup_links(const Config& cfg, ModelSetup& s);

// switch.vcs, traffic.vc, switch.buffer_bytes (and the shared pool, the dragonfly's buffer
// classes): the VC buffers and the packet entries of an input port, counted in packets of
// min_packet flits. After the congestion-control answers (ack_vc_shared: ACKs share a data VC).
void setup_buffers(const Config& cfg, ModelSetup& s, bool ack_vc_shared, uint32_t min_packet);

// switch.speedup, switch.arbitration, switch.vc_arbitration, switch.output_queue_packets: after
// the buffers.
void setup_arbitration(const Config& cfg, ModelSetup& s);

// switch.input_queue, switch.allocator: after the congestion-control marking and the routing.
void setup_switch_allocation(const Config& cfg, ModelSetup& s);

// switch.vc_allocation, switch.wait_for_tail_credit: last, once every model it refuses is known.
void setup_vc_allocation(const Config& cfg, ModelSetup& s);

}  // namespace saturn
