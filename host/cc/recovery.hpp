// Santos et al. Fig. 6 (PAPERS-SPEC M27, item 37): how a send queue recovers from R_min to R_max
// under each response function, per unmarked ACK (the kernels' own rate_increase) and as the
// paper's continuous curve F_inc(t). Times are in packet times; rates in units of R_max.
#pragma once
#include <string>
#include <vector>

#include "kernels/state/engine_view.hpp"

namespace saturn {

struct RecoveryPoint {
  double time;  // packet times since the queue was at R_min
  double rate;
};

struct Recovery {
  Response function;
  int acks = 0;              // unmarked ACKs from R_min to R_max
  double time = 0;           // packet times they take (each ACK nominally 1/r after the last)
  std::vector<RecoveryPoint> steps;  // the rate after each ACK, starting at (0, R_min)
};

Recovery recover_from_min(Response function);

// F_inc(t) of the paper: FIMD R_min m^(t/T), AIMD R_min + (m-1) R_min^2 t, LIPD
// R_max / (R_max/R_min - t/T), with T = 1/R_min packet times; capped at R_max.
double continuous_recovery(Response function, double time);

const char* response_name(Response function);

// `saturn response`: writes DIR/recovery.csv (per function: ACKs, packet times, milliseconds
// at the given packet time) and DIR/recovery_curves.csv (per-ACK steps and the continuous curve).
void write_recovery_files(const std::string& dir, double packet_time_us);

}  // namespace saturn
