// Config -> model for the endpoints (docs/model/traffic.md): what they send (message sizes,
// explicit flows, phases, traces, the host patterns of host_patterns.hpp), when (start jitter),
// and how they inject (injection.scheduler, injection.rates, a send queue per flow). Called by
// build_model (model_setup.cpp) at the points noted; each failure is one ConfigError naming its key.
#pragma once
#include <cstdint>
#include <string>

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {

// The traffic keys: the pattern, message sizes, explicit flows, phases or a trace, the host
// patterns, the victims' and size-split statistics and the start jitter. After the links (cycle_ns,
// flit_bytes, mtu_flits); *min_packet (in: the MTU) becomes the smallest packet the traffic sends.
void setup_traffic(const Config& cfg, const std::string& config_dir, ModelSetup& s, uint32_t* min_packet);

// injection.scheduler = "window" is cc.window under another name: the window the source uses
// (called by setup_cc_answers).
int injection_window(const Config& cfg, int cc_window);

// traffic.include_self: after the isolation set-up.
void setup_include_self(const Config& cfg, ModelSetup& s);

// injection.scheduler and injection.rates, with SAA's control packets: after the
// congestion-control answers, the routing and endpoint.active_queues.
void setup_injection(const Config& cfg, ModelSetup& s);

// A send queue per flow where a protocol keeps a flow's state in its queue: last.
void setup_queue_per_flow(const Config& cfg, const ModelSetup& s);

}  // namespace saturn
