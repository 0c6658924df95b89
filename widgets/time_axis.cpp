#include "widgets/time_axis.h"

#include <cmath>

#include "model/core/time.h"

namespace servescope::widgets {

std::int64_t tick_step_ns(double ns_per_px, double min_px) {
  const double want = std::max(1.0, ns_per_px * min_px);
  std::int64_t decade = 1;
  while (static_cast<double>(decade) * 10 <= want && decade < INT64_MAX / 100)
    decade *= 10;
  for (const std::int64_t m : {1, 2, 5, 10})
    if (static_cast<double>(decade * m) >= want) return decade * m;
  return decade * 10;
}

std::vector<std::int64_t> ticks(std::int64_t from_ns, std::int64_t to_ns, std::int64_t step_ns) {
  std::vector<std::int64_t> out;
  if (step_ns <= 0 || to_ns < from_ns) return out;
  // First multiple of the step at or after `from` (floor division for negative times).
  std::int64_t t = from_ns / step_ns * step_ns;
  if (t < from_ns) t += step_ns;
  for (; t <= to_ns && out.size() < 10'000; t += step_ns)
    out.push_back(t);
  return out;
}

QString format_time(std::int64_t t_ns, std::int64_t step_ns) {
  struct Unit {
    std::int64_t ns;
    const char* name;
  };
  static constexpr Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};
  // The largest unit the step is at least a thousandth of, so labels need three decimals at most.
  const auto step = std::max<std::int64_t>(1, step_ns);
  for (const auto& u : units) {
    if (u.ns > step * 1000) continue;
    int decimals = 0;
    for (std::int64_t part = u.ns; decimals < 3 && step % part != 0; part /= 10)
      ++decimals;
    return QString::number(static_cast<double>(t_ns) / static_cast<double>(u.ns), 'f', decimals) + QLatin1Char(' ') +
           QString::fromUtf8(u.name);
  }
  return QString::number(t_ns) + QStringLiteral(" ns");
}

std::vector<QString> tick_labels(const std::vector<std::int64_t>& ticks, std::int64_t step_ns, std::int64_t origin_ns) {
  constexpr qsizetype kLongest = 10;  // "1234.5 ms": longer than this, offsets read better
  std::vector<QString> out;
  bool offsets = false;
  for (const auto t : ticks)
    offsets = offsets || format_time(t - origin_ns, step_ns).size() > kLongest;
  const auto step = std::max<std::int64_t>(1, step_ns);
  for (std::size_t k = 0; k < ticks.size(); ++k) {
    const auto since = ticks[k] - origin_ns;
    if (!offsets) {
      out.push_back(format_time(since, step));
    } else if (k == 0) {
      int decimals = 0;
      for (std::int64_t part = 1'000'000'000; decimals < 9 && step % part != 0; part /= 10)
        ++decimals;
      out.push_back(QString::number(static_cast<double>(since) / 1e9, 'f', decimals) + QStringLiteral(" s"));
    } else {
      out.push_back(QStringLiteral("+") + format_time(ticks[k] - ticks[0], step));
    }
  }
  return out;
}

QString format_duration(std::int64_t ns) {
  return QString::fromStdString(servescope::format_duration(Duration::nanoseconds(ns)));
}

}  // namespace servescope::widgets
