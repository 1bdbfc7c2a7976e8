// Congestion-isolation model parameters (Rocher-Gonzalez et al. 2021; docs/model/isolation.md):
// the routing technique, the static queuing scheme, the detector and the ARN settings, in cycles.
// Part of ModelParams (engine_view.hpp); zero-initialized = off (technique kNone).
#pragma once
#include <cstdint>

#include "kernels/isolation/afi.hpp"
#include "kernels/isolation/queue_schemes.hpp"

namespace saturn {

// isolation.technique: kNone = the feature is off (routing.algorithm routes); the others are the
// six routing configurations of 003 §4.1 (AFI is the separate flag IsolationParams::afi).
enum class IsoTechnique : uint8_t { kNone = 0, kDmodk, kOblivious, kAdaptiveTh, kArn, kCount };

struct IsolationParams {
  IsoTechnique technique;
  bool afi;                     // Adaptive-Th + AFI, ARN + AFI: the AFC is the last VC
  QueueScheme scheme;
  SchemeGeometry geometry;
  DetectorParams detector;      // ARN techniques: thresholds and the CRT in cycles
  ArnParams arn;                // ARN techniques: TTL and gap in cycles, the incast reading, the full policy
  int arn_entries;              // ARN table entries per switch
  uint32_t adaptive_th_pct;     // Adaptive-Th trigger (003: 75)
  uint32_t detector_period;     // cycles between detector evaluations (>= 1)
  int vc_packets;               // MTU packets per VC buffer (the detector's reference capacity)
  bool detector_skips_afc;      // isolation.detector_vcs = "regular": the detector does not watch the AFC's VOQs
};

SATURN_INLINE bool iso_on(const IsolationParams& p) { return p.technique != IsoTechnique::kNone; }
SATURN_INLINE bool iso_arn(const IsolationParams& p) { return p.technique == IsoTechnique::kArn; }

// The VC of a new message (endpoint_activate): the scheme's under isolation, else the caller's.
SATURN_INLINE uint32_t iso_message_vc(const IsolationParams& p, uint32_t src, uint32_t dst, uint32_t vc) {
  if (!iso_on(p)) return vc;
  return static_cast<uint32_t>(scheme_vc(p.scheme, src, dst, p.geometry));
}

}  // namespace saturn
