#include "widgets/batch_details.h"

#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {

QString batch_details_html(const TimelineView& view) {
  const auto* t = view.timeline();
  const auto span = view.selected();
  if (!t) return TimelineView::tr("No run shown.");
  if (!span) {
    QString text = TimelineView::tr("Click a batch to see it here.<br>");  // and the mouse's gestures
    const auto gestures = TimelineView::key_help().first(TimelineView::kMouseGestures);
    for (const auto& [keys, does] : gestures)
      text += QStringLiteral("<br>%1: %2").arg(TimelineView::tr(keys), TimelineView::tr(does));
    return text;
  }
  // Its requests: how long each waited, its latency and the slack its deadline left.
  QString text = view.describe(*span);
  const auto requests = t->requests_of(*span);
  if (requests.empty()) return text;
  const auto& s = t->spans[*span];
  text += TimelineView::tr(
      "<table cellspacing=0 cellpadding=2><tr><th align=left>request</th><th align=right>waited</th>"
      "<th align=right>latency</th><th align=right>slack</th></tr>");
  constexpr std::size_t kShown = 40;
  for (std::size_t k = 0; k < requests.size() && k < kShown; ++k) {
    const auto& r = requests[k];
    const auto slack = (r.deadline - s.end).count_ns();
    text +=
        QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4%5%6</td></tr>")
            .arg(r.id)
            .arg(format_duration((s.start - r.arrival).count_ns()), format_duration((s.end - r.arrival).count_ns()),
                 slack < 0 ? QStringLiteral("<b>") : QString(), format_duration(slack),
                 slack < 0 ? QStringLiteral("</b>") : QString());
  }
  text += QStringLiteral("</table>");
  if (requests.size() > kShown) text += TimelineView::tr("… and %1 more").arg(requests.size() - kShown);
  return text;
}

}  // namespace servescope::widgets
