#include "engine/live/scheduler_counters.h"

#include <sstream>
#include <string_view>

namespace servescope::engine::live {
namespace {

// Prometheus label values: backslash, quote and newline escaped.
std::string label(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::uint64_t SchedulerCounters::requests() const {
  std::uint64_t n = 0;
  for (const auto a : arrivals)
    n += a;
  return n;
}

std::uint64_t SchedulerCounters::finished() const {
  std::uint64_t n = 0;
  for (std::size_t m = 0; m < arrivals.size(); ++m) {
    n += on_time[m] + late[m];
    for (const auto d : dropped[m])
      n += d;
  }
  return n;
}

std::string prometheus_text(const SchedulerCounters& counters, const SimulationResult& r,
                            const SchedulerGauges& gauges) {
  std::ostringstream out;
  auto family = [&](const char* name, const char* type, const char* help) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  };
  family("servescope_requests_total", "counter", "Requests that arrived at the scheduler.");
  for (std::size_t m = 0; m < r.models.size(); ++m)
    out << "servescope_requests_total{model=\"" << label(r.models[m]) << "\"} " << counters.arrivals[m] << '\n';
  family("servescope_requests_completed_total", "counter", "Requests completed, by whether they met their SLO.");
  for (std::size_t m = 0; m < r.models.size(); ++m) {
    out << "servescope_requests_completed_total{model=\"" << label(r.models[m]) << "\",on_time=\"true\"} "
        << counters.on_time[m] << '\n';
    out << "servescope_requests_completed_total{model=\"" << label(r.models[m]) << "\",on_time=\"false\"} "
        << counters.late[m] << '\n';
  }
  family("servescope_requests_dropped_total", "counter", "Requests dropped, by reason.");
  for (std::size_t m = 0; m < r.models.size(); ++m)
    for (int d = 0; d < kDropReasonCount; ++d)
      out << "servescope_requests_dropped_total{model=\"" << label(r.models[m]) << "\",reason=\""
          << to_string(static_cast<DropReason>(d)) << "\"} " << counters.dropped[m][static_cast<std::size_t>(d)]
          << '\n';
  family("servescope_requests_outstanding", "gauge", "Requests in the data plane now.");
  out << "servescope_requests_outstanding " << gauges.outstanding << '\n';
  family("servescope_batches_total", "counter", "Batches completed per vGPU slot.");
  for (std::size_t g = 0; g < r.gpus.size(); ++g)
    out << "servescope_batches_total{gpu=\"" << label(r.gpus[g]) << "\"} " << counters.batches[g] << '\n';
  family("servescope_gpu_busy_seconds_total", "counter", "Time each vGPU slot spent running batches.");
  for (std::size_t g = 0; g < r.gpus.size(); ++g)
    out << "servescope_gpu_busy_seconds_total{gpu=\"" << label(r.gpus[g]) << "\"} "
        << static_cast<double>(counters.busy_ns[g]) / 1e9 << '\n';
  family("servescope_transfers_total", "counter", "Feature maps moved between workers.");
  out << "servescope_transfers_total " << counters.transfers << '\n';
  family("servescope_transfer_bytes_total", "counter", "Bytes of feature maps moved between workers.");
  out << "servescope_transfer_bytes_total " << counters.transfer_bytes << '\n';
  family("servescope_workers_connected", "gauge", "Workers connected now.");
  out << "servescope_workers_connected " << gauges.workers << '\n';
  family("servescope_workers_lost_total", "counter", "Workers that died or stopped answering.");
  out << "servescope_workers_lost_total " << counters.workers_lost << '\n';
  family("servescope_workers_doubted_total", "counter",
         "Times a worker's overdue batch took its GPUs out of planning until it answered.");
  out << "servescope_workers_doubted_total " << counters.workers_doubted << '\n';
  family("servescope_subscribers", "gauge", "GUI subscribers connected now.");
  out << "servescope_subscribers " << gauges.subscribers << '\n';
  family("servescope_subscribers_dropped_total", "counter", "Subscribers dropped for reading too slowly.");
  out << "servescope_subscribers_dropped_total " << counters.subscribers_dropped << '\n';
  family("servescope_connections_refused_total", "counter", "Connections refused (token, protocol, role).");
  out << "servescope_connections_refused_total " << counters.connections_refused << '\n';
  family("servescope_connections_evicted_total", "counter",
         "Connections closed before their hello to make room for newer ones.");
  out << "servescope_connections_evicted_total " << counters.connections_evicted << '\n';
  family("servescope_events_total", "counter", "Run events streamed to subscribers.");
  out << "servescope_events_total " << counters.events << '\n';
  // A summary is its quantiles, _sum and _count: rate(_sum) / rate(_count) is the mean a dashboard plots.
  const auto summary = [&](const std::string& name, const char* help, const LatencyHistogram& h) {
    family(name.c_str(), "summary", help);
    for (const double q : {0.5, 0.9, 0.99})
      out << name << "{quantile=\"" << q << "\"} " << h.quantile(q).to_s() << '\n';
    out << name << "_sum " << h.sum_ns() / 1e9 << '\n';
    out << name << "_count " << h.count() << '\n';
  };
  summary("servescope_dispatch_overhead_seconds",
          "From the event that triggered a dispatch to the batch order on the worker's socket.",
          counters.dispatch_overhead);
  summary("servescope_batch_hop_seconds",
          "For a batch ordered to start at once on an idle slot, from its order to its start as its report tells.",
          counters.batch_hop);
  summary("servescope_transfer_overhead_seconds",
          "For a feature map between servers, its time beyond its link's for its bytes.", counters.transfer_overhead);
  family("servescope_control_commands_total", "counter",
         "Control commands from peers, served or ignored for coming faster than a peer's limit.");
  out << "servescope_control_commands_total{outcome=\"served\"} " << counters.commands_served << '\n';
  out << "servescope_control_commands_total{outcome=\"limited\"} " << counters.commands_limited << '\n';
  family("servescope_plan_switches_limited_total", "counter",
         "Plan switches refused for coming while one was under way or sooner than the interval after the last.");
  out << "servescope_plan_switches_limited_total " << counters.plan_switches_limited << '\n';
  family("servescope_recording_failed", "gauge",
         "1 once the run's recording (--record) could not keep its events; it keeps what came before.");
  out << "servescope_recording_failed " << (counters.recording_failed ? 1 : 0) << '\n';
  return out.str();
}

}  // namespace servescope::engine::live
