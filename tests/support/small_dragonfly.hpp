// A small dragonfly with 001's classes of links and buffers, for tests that run the dragonfly
// fabric quickly: p = 2, a = 4, h = 2, g = 9 (72 endpoints), 1 ns cycles of 100-byte flits,
// endpoint links 1 cycle, local 1 + 5, global 1 + 20, a router delay of 2 cycles, 192 flits of
// buffer per port (local and endpoint) and 480 per global port, crossbar speedup 2, 4-flit
// messages, 2 trials of 20 us. Tests add what they study with overrides (routing, VCs, ACKs).
#pragma once

namespace saturn {
namespace test {

inline const char* const kSmallDragonfly = R"(
[simulation]
trials = 2
warmup_ns = 0
duration_ns = 20000
[topology]
kind = "dragonfly"
dragonfly_p = 2
dragonfly_a = 4
dragonfly_h = 2
dragonfly_g = 9
[link]
flit_bytes = 100
bandwidth_gbps = 800
latency_ns = 0
local_latency_ns = 5
global_latency_ns = 20
[switch]
router_delay_ns = 2
buffer_bytes = 19200
global_buffer_bytes = 48000
speedup = "2"
[endpoint]
mtu_bytes = 2400
[traffic]
message_bytes = [400]
)";

}  // namespace test
}  // namespace saturn
