#include "host/cc/recovery.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "kernels/cc/response.hpp"

namespace saturn {

Recovery recover_from_min(Response function) {
  Recovery r;
  r.function = function;
  double rate = kRateMin;
  r.steps.push_back({0.0, rate});
  while (rate < 1.0 - 1e-12) {
    r.time += 1.0 / rate;  // the next unmarked ACK arrives one packet interval later
    rate = rate_increase(function, rate);
    ++r.acks;
    r.steps.push_back({r.time, rate});
  }
  return r;
}

double continuous_recovery(Response function, double time) {
  const double T = 1.0 / kRateMin;
  double rate = 1.0;
  switch (function) {
    case Response::kFimd: rate = kRateMin * std::pow(kRateFactor, time / T); break;
    case Response::kAimd: rate = kRateMin + (kRateFactor - 1.0) * kRateMin * kRateMin * time; break;
    case Response::kLipd: rate = 1.0 / (1.0 / kRateMin - time / T); break;
    case Response::kNone: break;
  }
  return rate > 1.0 || rate <= 0.0 ? 1.0 : rate;
}

const char* response_name(Response function) {
  switch (function) {
    case Response::kFimd: return "fimd";
    case Response::kAimd: return "aimd";
    case Response::kLipd: return "lipd";
    case Response::kNone: break;
  }
  return "none";
}

void write_recovery_files(const std::string& dir, double packet_time_us) {
  std::filesystem::create_directories(dir);
  std::ofstream summary(dir + "/recovery.csv"), curves(dir + "/recovery_curves.csv");
  if (!summary || !curves) throw std::runtime_error("cannot write to " + dir);
  summary << "function,acks,packet_times,ms\n";
  curves << "function,kind,packet_times,ms,rate\n";
  char line[160];
  for (Response f : {Response::kFimd, Response::kLipd, Response::kAimd}) {
    const Recovery r = recover_from_min(f);
    std::snprintf(line, sizeof line, "%s,%d,%.6f,%.6f\n", response_name(f), r.acks, r.time,
                  r.time * packet_time_us / 1000.0);
    summary << line;
    for (const RecoveryPoint& p : r.steps) {
      std::snprintf(line, sizeof line, "%s,ack,%.6f,%.9f,%.12g\n", response_name(f), p.time,
                    p.time * packet_time_us / 1000.0, p.rate);
      curves << line;
    }
    const int n = 512;
    for (int i = 0; i <= n; ++i) {
      const double t = r.time * i / n;
      std::snprintf(line, sizeof line, "%s,continuous,%.6f,%.9f,%.12g\n", response_name(f), t,
                    t * packet_time_us / 1000.0, continuous_recovery(f, t));
      curves << line;
    }
  }
}

}  // namespace saturn
