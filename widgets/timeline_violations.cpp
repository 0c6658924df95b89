#include "widgets/timeline_violations.h"

#include <QObject>
#include <algorithm>
#include <tuple>

#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {

bool go_to_next_violation(TimelineView& view, std::int64_t warmup_ns, QString* said) {
  const auto* t = view.timeline();
  if (!t) {
    *said = QObject::tr("No run is shown");
    return false;
  }
  // Nothing before the warm-up counts (its drops are the queues filling), so neither is it shown.
  const auto after = std::max(view.now_ns().value_or(view.from_ns()), warmup_ns);
  // The first late batch and the first drop after `from_ns`; a batch starting at `from_ns` counts
  // when it comes after the selected one (other late batches may start then too).
  const auto search = [&](std::int64_t from_ns, std::optional<std::uint32_t> selected) {
    const auto from = selected && t->spans[*selected].start.count_ns() == from_ns
                          ? t->spans.begin() + static_cast<std::ptrdiff_t>(*selected) + 1
                          : std::ranges::upper_bound(t->spans, from_ns, {},
                                                     [](const engine::TimelineSpan& s) { return s.start.count_ns(); });
    const auto late =
        std::ranges::find_if(from, t->spans.end(), [](const engine::TimelineSpan& s) { return s.late > 0; });
    const auto drop =
        std::ranges::upper_bound(t->drops, from_ns, {}, [](const engine::DropMark& d) { return d.time.count_ns(); });
    return std::pair{late, drop};
  };
  auto [late, drop] = search(after, view.selected());
  // Past the last one: round again from the end of the warm-up, and say so.
  bool wrapped = false;
  if (late == t->spans.end() && drop == t->drops.end()) {
    std::tie(late, drop) = search(warmup_ns - 1, std::nullopt);
    wrapped = true;
  }
  const bool have_late = late != t->spans.end(), have_drop = drop != t->drops.end();
  if (!have_late && !have_drop) {
    view.mark_rows({});
    *said = warmup_ns > 0 ? QObject::tr("No late batch or drop after the %1 warm-up").arg(format_duration(warmup_ns))
                          : QObject::tr("No late batch or drop in this run");
    return false;
  }
  const auto note = wrapped ? QObject::tr(" (past the last one: back to the start of the run)") : QString();
  // Whichever comes first: a batch that finished a request late, or a request dropped.
  if (have_late && (!have_drop || late->start <= drop->time)) {
    // At the zoom the user chose: the batch comes into view, its row is scrolled to and marked.
    view.set_now(late->start.count_ns());
    view.select(static_cast<std::uint32_t>(late - t->spans.begin()));
    view.reveal(late->start.count_ns(), late->gpu);
    view.mark_rows({late->gpu});
    *said = (QObject::tr("Late: %1 of %2 requests of %3 missed their deadline")
                 .arg(late->late)
                 .arg(late->size)
                 .arg(QString::fromStdString(t->models[late->model])) +
             note);
    return true;
  }
  // Drops at one instant are one stop: the next press moves to the next instant.
  const auto at = drop->time.count_ns();
  const auto same = std::ranges::upper_bound(drop, t->drops.end(), at, {},
                                             [](const engine::DropMark& d) { return d.time.count_ns(); }) -
                    drop;
  view.set_now(at);
  view.select(std::nullopt);
  view.mark_rows({});
  view.reveal(at, std::nullopt, drop->model);  // drops are marked on their model's queue row
  const auto when = format_duration(at - view.time_origin()), model = QString::fromStdString(t->models[drop->model]),
             why = QString::fromUtf8(engine::to_string(drop->reason).data());
  *said = (same > 1 ? QObject::tr("%1 requests dropped at %2, the first of %3 (%4)").arg(same).arg(when, model, why)
                    : QObject::tr("Dropped at %1: a request of %2 (%3)").arg(when, model, why)) +
          note;
  return true;
}

}  // namespace servescope::widgets
