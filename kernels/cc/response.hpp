// Source response functions of Santos, Turner & Janakiraman (PAPERS-SPEC M26, M27): the rate r
// of a send queue in packets per packet time (R_max = 1, R_min = 1/256, m = 2) is lowered by
// f_dec on every marked ACK and raised by f_inc on every unmarked one.
//   FIMD: f_dec = max(r/m, Rmin),            f_inc = min(r * m^(Rmin/r), 1)
//   AIMD: f_dec = max(r/m, Rmin),            f_inc = min(r + (m-1) Rmin^2 / r, 1)
//   LIPD: f_dec = max(1/(1/r + 1), Rmin),    f_inc = min(r / (1 - Rmin), 1)   (ipd -= 1 per T)
// Only IEEE +, -, *, / (fastmath.hpp's rule), so every backend computes the same bits.
#pragma once
#include <cstdint>

#include "kernels/common/fastmath.hpp"
#include "kernels/common/macros.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

constexpr double kRateMin = 1.0 / 256.0;  // R_min = R_max / 256, the IPD limit
constexpr double kRateFactor = 2.0;       // m of FIMD and AIMD
constexpr int kMaxIpd = 255;

// 2^x for 0 <= x <= 1: e^y, y = x ln 2 <= 0.694, Taylor series to y^20 (error < 1e-16).
SATURN_INLINE double exp2_unit(double x) {
  const double y = x * kLn2;
  double sum = 1.0, term = 1.0;
  for (int n = 1; n <= 20; ++n) {
    term = term * y / static_cast<double>(n);
    sum = sum + term;
  }
  return sum;
}

SATURN_INLINE double rate_decrease(Response f, double r) {
  double next = r;
  if (f == Response::kLipd) next = 1.0 / (1.0 / r + 1.0);
  else if (f != Response::kNone) next = r / kRateFactor;
  return next < kRateMin ? kRateMin : next;
}

SATURN_INLINE double rate_increase(Response f, double r) {
  double next = r;
  if (f == Response::kFimd) next = r * exp2_unit(kRateMin / r);  // m = 2: m^(Rmin/r) = 2^(Rmin/r)
  else if (f == Response::kAimd) next = r + (kRateFactor - 1.0) * kRateMin * kRateMin / r;
  else if (f == Response::kLipd) next = r / (1.0 - kRateMin);
  return next > 1.0 ? 1.0 : next;
}

// Discrete IPD mode (M26, U14): the continuous rate is kept as the state and quantised for
// injection onto the 256 rates 1 / (1 + ipd), ipd in 0..255. kDiscrete rounds down, ipd =
// ceil(1/r - 1 - eps): a source never sends above its computed rate. kDiscreteNearest takes the
// grid rate nearest to r (ties down). Near line rate the grid is coarse (1, 1/2, 1/3): at r = 0.7
// both send at 1/2, at r = 0.8 the first sends at 1/2 and the second at 1.
// `steps` (cc.ipd_steps, 1 for 002's and InfiniBand's integer IPD) divides the packet time: the
// grid becomes 1 / (1 + ipd / steps), ipd in 0..255 x steps, the same lowest rate on a finer grid
// (an experiment's knob: how much of a difference the grid's coarseness makes).
SATURN_INLINE int rate_to_ipd(double r, RateGrid grid = RateGrid::kDiscrete, int steps = 1) {
  const double s = static_cast<double>(steps);
  const double x = s * (1.0 / r - 1.0) - 1e-9;
  int ipd = static_cast<int>(x);
  if (static_cast<double>(ipd) < x) ++ipd;
  const int max_ipd = kMaxIpd * steps;
  if (grid == RateGrid::kDiscreteNearest && ipd > 0 && ipd <= max_ipd) {
    const double below = s / (s + static_cast<double>(ipd)), above = s / (s + static_cast<double>(ipd - 1));
    if (above - r < r - below) --ipd;
  }
  return ipd < 0 ? 0 : (ipd > max_ipd ? max_ipd : ipd);
}

// Packet-start spacing per flit at rate r, in 1/65536 cycles (65536 = line rate). On the grid it is
// (1 + ipd / steps) cycles, exact for steps a power of two up to 2^16 (cc.ipd_steps is checked).
SATURN_INLINE uint32_t rate_gap_q16(double r, RateGrid grid, int steps = 1) {
  if (grid != RateGrid::kContinuous) {
    const uint32_t ipd = static_cast<uint32_t>(rate_to_ipd(r, grid, steps));
    return (1u << 16) + ipd * ((1u << 16) / static_cast<uint32_t>(steps));
  }
  const double g = 65536.0 / r + 0.5;
  return static_cast<uint32_t>(g);
}

}  // namespace saturn
