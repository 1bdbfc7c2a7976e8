// Config -> model for the fabric of the 001 dragonfly: link delays and VC buffers per link class,
// and dragonfly routing in the packet engine (docs/model/topologies.md, dragonfly-protocols.md).
// Called by build_model (model_setup.cpp) at the points noted; each failure is one ConfigError
// naming its key.
#pragma once

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {

// link.local_latency_ns, link.global_latency_ns: after model.link_latency is set. Turns on
// per-port rings (ModelParams::per_port_links) where some class differs from link.latency_ns.
void setup_link_classes(const Config& cfg, ModelSetup& s);

// switch.global_buffer_bytes: after model.vc_flits (data_vcs: the VCs switch.buffer_bytes is split
// among). Turns on per-port VC buffers where it differs; returns the largest VC buffer in flits.
int setup_buffer_classes(const Config& cfg, ModelSetup& s, int data_vcs, int flit_bytes);

// switch.vc_buffer, switch.vc_min_bytes: right after model.vc_flits (buffer_flits: the port's
// buffer). A shared buffer sets vc_min_flits and pool_flits and makes vc_flits the most one VC may
// hold (min + pool; kernels/state/credit_pool.hpp); returns the packet entries an input port needs,
// the whole buffer in packets of min_packet flits (the entries of all VCs are one free list).
// Returns 0 for a static split (the caller sizes the entries per VC).
int64_t setup_vc_pool(const Config& cfg, ModelSetup& s, int data_vcs, int flit_bytes, int64_t buffer_flits,
                      uint32_t min_packet);

// Dragonfly routing with ACKs: the ACK class has R VCs sized like the data VCs (per link class),
// not one separate VC of cc.ack_buffer_packets. Right after the ACK setup; true when it applies.
bool dragonfly_ack_class(const Config& cfg, ModelSetup& s);

// routing.algorithm = minimal | valiant | ugal | par: after the congestion-control setup.
void setup_dragonfly_routing(const Config& cfg, ModelSetup& s);

// Per-port packet pools (per_port_buffers): entries of an input port per link class, as many
// packets of the smallest size as the VCs it receives on hold (data VCs: data_min_packet flits;
// the ACK class of dragonfly routing: cc.ack_bytes). Last, after the routing.
void setup_entry_pools(const Config& cfg, ModelSetup& s, uint32_t data_min_packet, uint32_t min_packet);

}  // namespace saturn
