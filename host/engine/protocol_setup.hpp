// Config -> model for congestion control and the endpoint protocols (docs/model/congestion-control.md,
// dragonfly-protocols.md): the ACK / BECN answers, marking, source response, CCA, dynamic flows,
// and 001's ECN and speculative protocols (cc.protocol). Called by build_model (model_setup.cpp) at
// the points noted; each failure is one ConfigError naming its key.
#pragma once

#include "host/config/config.hpp"
#include "host/engine/model_setup.hpp"

namespace saturn {

// The answers (ACKs, BECNs): their size, class and VC, and the window; before the buffers are
// sized. Returns true when they share a VC with data (then the smallest packet of that buffer is
// an ACK).
bool setup_cc_answers(const Config& cfg, ModelSetup& s, int flit_bytes);

// Bounded bypass, marking, CCA, dynamic flows and the statistics that need buffer occupancy: after
// the buffers and the arbitration.
void setup_cc_rest(const Config& cfg, ModelSetup& s);

// cc.protocol (baseline, ecn, srp, smsrp, lhrp, lhrp_fabric_drop, comprehensive): after the
// dragonfly routing and the injection set-up.
void setup_cc_protocol(const Config& cfg, ModelSetup& s);

}  // namespace saturn
