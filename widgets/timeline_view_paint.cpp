// How the timeline view paints (Qt Creator's timeline, docs gui-anchors §0 items 1–2): only the
// rows and the time window in view, boxes under 2 px merged into runs, a pixel column's batches
// skipped by a galloping search over the row's index, colours from the palette; then the NICs'
// transfers, the queue depths and the time axis.
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <utility>

#include "widgets/model_colors.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {
void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const auto pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  boxes_painted_ = 0;
  if (!data_) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    // Wrapped: a narrow view (the Live tab beside its side panel) must not cut the sentence.
    p.drawText(rect().adjusted(16, 0, -16, 0), Qt::AlignCenter | Qt::TextWordWrap,
               empty_text_.isEmpty() ? tr("No run yet: simulate a plan to see what every GPU does") : empty_text_);
    return;
  }
  // Lanes, culled to the visible height and the time area's right edge (the scroll bar's left).
  const double top = lanes_top();
  p.setClipRect(QRectF(0, top, plot_right(), height() - top));
  const double visible_top = scroll_px_, visible_bottom = scroll_px_ + height() - top;
  auto first = std::ranges::upper_bound(lanes_, visible_top, {}, &Lane::top);
  if (first != lanes_.begin()) --first;
  std::uint32_t last_physical = UINT32_MAX;
  for (auto it = first; it != lanes_.end() && it->top < visible_bottom; ++it) {
    const double y = top + it->top - scroll_px_;
    switch (it->kind) {
      case Lane::Kind::Slot:
      case Lane::Kind::Group: {
        const auto physical = physical_of(index_.slot(it->index));
        if (physical != last_physical && it != lanes_.begin()) {
          p.setPen(pal.color(QPalette::Mid));
          p.drawLine(QPointF(0, y), QPointF(plot_right(), y));
        }
        last_physical = physical;
        paint_slot(p, *it, y);
        break;
      }
      case Lane::Kind::Network:
        paint_network(p, *it, y);
        break;
      case Lane::Kind::Queue:
        paint_queue(p, *it, y);
        break;
    }
  }
  paint_range(p, height());
  if (flows_shown_) paint_flow(p);
  p.setClipping(false);
  paint_axis(p);
  paint_overview(p);
  paint_notices(p, height());
  // Label column border and the playback line.
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(kLabelWidth - 0.5, 0), QPointF(kLabelWidth - 0.5, height()));
  if (now_) {
    const double x = x_of(*now_);
    if (x >= kLabelWidth && x <= plot_right()) {
      p.setPen(QPen(QColor::fromHslF(0.0f, 0.8f, 0.5f), 2));
      p.drawLine(QPointF(x, kAxisHeight), QPointF(x, height()));
    }
  }
  paint_annotation(p);
  if (gesture_ == Gesture::ZoomRange) {
    QColor band = pal.color(QPalette::Highlight);
    band.setAlphaF(0.25f);
    p.fillRect(QRectF(QPointF(std::min(range_x_, static_cast<double>(press_pos_.x())), kAxisHeight),
                      QPointF(std::max(range_x_, static_cast<double>(press_pos_.x())), height())),
               band);
  }
}

void TimelineView::paint_slot(QPainter& p, const Lane& lane, double y) {
  paint_slot_label(p, lane, y);
  const double top = y + 2, h = kRowHeight - 4;
  // A collapsed GPU paints all its slots' batches into its one row.
  for (std::size_t row = lane.index; row < lane.index + lane.rows; ++row) {
    paint_boxes(p, row, top, h);
    paint_duty_cycle(p, index_.slot(row), top, h);
    paint_selection(p, index_.slot(row), top, h);
  }
  paint_sparkline(p, lane.index, y);
}

// The slot, with its type and share; a GPU's first slot offers to collapse the group.
void TimelineView::paint_slot_label(QPainter& p, const Lane& lane, double y) {
  const auto pal = palette();
  const auto slot = index_.slot(lane.index);
  const auto physical = physical_of(slot);
  const bool grouped = physical < group_size_.size() && group_size_[physical] > 1;
  const bool first_of_group = lane.index == 0 || physical_of(index_.slot(lane.index - 1)) != physical;
  QString label;
  if (lane.kind == Lane::Kind::Group) {
    const auto name = physical < data_->physical_names.size() ? data_->physical_names[physical] : data_->gpus[slot];
    label = QStringLiteral("▸ ") +
            tr("%1 (%n slots)", nullptr, static_cast<int>(lane.rows)).arg(QString::fromStdString(name));
  } else {
    label = QString::fromStdString(data_->gpus[slot]);
    if (slot < data_->gpu_shares.size() && data_->gpu_shares[slot] != "1")
      label += QStringLiteral(" · ") + QString::fromStdString(data_->gpu_shares[slot]);
    if (grouped) label = (first_of_group ? QStringLiteral("▾ ") : QStringLiteral("   ")) + label;
  }
  const int room = kLabelWidth - kSparklineWidth - 12;
  if (lane_marked(lane)) {  // a plan part picked in the Plans tab runs here
    auto tint = pal.color(QPalette::Highlight);
    tint.setAlpha(70);
    p.fillRect(QRectF(0, y, kLabelWidth, kRowHeight), tint);
    p.fillRect(QRectF(0, y, 3, kRowHeight), pal.color(QPalette::Highlight));
  }
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRectF(4, y, room, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(label, Qt::ElideMiddle, room));
}

void TimelineView::paint_boxes(QPainter& p, std::size_t row, double top, double h) {
  const auto pal = palette();
  const auto spans = index_.spans(row);
  const auto [first, last] =
      index_.range(row, engine::Time::nanoseconds(from_ns()), engine::Time::nanoseconds(to_ns()));
  const double px_ns = ns_per_px();
  const double right = plot_right();
  const double from = static_cast<double>(from_ns());
  const bool filtered = std::ranges::find(model_visible_, false) != model_visible_.end();
  // Boxes under kMergePx wide join a run painted as one rectangle (Qt Creator's sub-pixel
  // merging). Coloured by model, a run of several models is striped in their colours, each as
  // tall as its share of the run (sampled per pixel column: the first, middle and last batch
  // starting in it); by SLO outcome, a run is split in late's colour below and on time's above,
  // each as tall as its share of the run's batches (any late one at least a pixel): a run with
  // 97 % on time no longer reads as all late zoomed out.
  constexpr double kMergePx = 2.0;
  double run_x0 = 0, run_x1 = -1;
  QColor run_colour;
  bool run_mixed = false;
  std::vector<double> run_weight(model_colours_.size(), 0.0);
  std::vector<std::uint32_t> run_models;    // those with weight, to reset
  std::size_t run_first = 0, run_last = 0;  // the run's boxes, for its share of late ones
  const QColor mixed = pal.color(QPalette::Mid);
  const QColor late_tone = late_colour();
  const bool by_outcome = colouring_ == BoxColouring::SloOutcome;
  const QColor ok_tone = box_colour(0, 0, false), preempted_tone = box_colour(0, 0, true);
  const bool by_batch = colouring_ == BoxColouring::Batch;
  const bool by_model = !by_outcome && !by_batch;
  const bool dark = is_dark(pal);
  const auto colour_of = [&](const engine::TimelineIndex::Box& b) -> QColor {
    if (by_batch) {  // golden-ratio hues: neighbouring batches differ
      const double hue = std::fmod(static_cast<double>(b.group % 100'003) * 0.618033988749895, 1.0);
      return QColor::fromHslF(static_cast<float>(hue), 0.6f, dark ? 0.42f : 0.7f);
    }
    if (!by_outcome) return b.model < model_colours_.size() ? model_colours_[b.model] : mixed;
    return b.preempted ? preempted_tone : b.late > 0 ? late_tone : ok_tone;
  };
  const auto weigh = [&](std::uint32_t model, double px) {
    if (model >= run_weight.size()) return;
    if (run_weight[model] == 0) run_models.push_back(model);
    run_weight[model] += px;
  };
  const auto flush = [&] {
    if (run_x1 > run_x0) {
      const QRectF run(run_x0, top, run_x1 - run_x0, h);
      if (by_model && run_models.size() > 1) {
        std::ranges::sort(run_models);
        double total = 0;
        for (const auto m : run_models)
          total += run_weight[m];
        double y = top;
        for (const auto m : run_models) {
          const double next = y + h * run_weight[m] / total;
          p.fillRect(QRectF(run_x0, std::round(y), run_x1 - run_x0, std::round(next) - std::round(y)),
                     model_colours_[m]);
          y = next;
        }
      } else if (by_outcome) {
        const auto& late_before = late_prefix_[row];
        const double count = static_cast<double>(run_last + 1 - run_first);
        const double late_boxes = late_before[run_last + 1] - late_before[run_first];
        const double late_h = late_boxes > 0 ? std::max(1.0, std::round(h * late_boxes / count)) : 0.0;
        p.fillRect(QRectF(run_x0, top, run_x1 - run_x0, h - late_h), run_colour);
        if (late_h > 0) p.fillRect(QRectF(run_x0, top + h - late_h, run_x1 - run_x0, late_h), late_tone);
      } else {
        p.fillRect(run, run_mixed ? mixed : run_colour);
      }
      ++boxes_painted_;
    }
    for (const auto m : run_models)
      run_weight[m] = 0;
    run_models.clear();
    run_x1 = -1;
  };
  const auto boxes = index_.boxes(row);
  const double scale = 1.0 / px_ns;
  for (std::size_t k = first; k < last; ++k) {
    const auto& b = boxes[k];
    if (filtered && !model_shown(b.model)) continue;
    const double x0 =
        std::max(static_cast<double>(kLabelWidth), kLabelWidth + (static_cast<double>(ns(b.start)) - from) * scale);
    const double x1 = std::min(right, kLabelWidth + (static_cast<double>(ns(b.end)) - from) * scale);
    if (x1 < x0) continue;
    if (x1 - x0 < kMergePx) {
      const double px0 = std::floor(x0), px1 = std::max(px0 + 1, std::ceil(x1));
      // Everything else starting in this pixel column is covered by the same pixel: skip to the
      // last of them (a row's batches follow one another, so only that one can reach further).
      std::size_t skip_to = k;
      if (!filtered && x1 - x0 < 1.0) {
        const auto next_column = from_ns() + static_cast<std::int64_t>(std::ceil((px0 + 1 - kLabelWidth) * px_ns));
        skip_to = std::min(last, index_.next_starting_at(row, k + 1, engine::Time::nanoseconds(next_column)));
        skip_to = skip_to > k + 1 ? skip_to - 1 : k;
      }
      // By outcome the run's base is on time's colour (a preempted box's where it is alone) and its
      // late share is counted when it is painted.
      const QColor colour = by_outcome && b.late > 0 ? ok_tone : colour_of(b);
      if (run_x1 >= px0) {
        run_x1 = std::max(run_x1, px1);
        if (by_outcome) {
          if (colour != run_colour) run_colour = ok_tone;
        } else if (by_batch) {
          run_mixed = run_mixed || colour != run_colour || skip_to > k;
        }
      } else {
        flush();
        run_x0 = px0;
        run_x1 = px1;
        run_colour = colour;
        run_mixed = by_batch && skip_to > k;
        run_first = k;
      }
      run_last = skip_to;
      if (by_model) {
        if (skip_to > k) {
          const double share = (px1 - px0) / 3;
          weigh(b.model, share);
          weigh(boxes[(k + skip_to) / 2].model, share);
          weigh(boxes[skip_to].model, share);
        } else {
          weigh(b.model, px1 - px0);
        }
      }
      if (skip_to > k) k = skip_to - 1;  // the loop's ++k lands on the last one in the column
      continue;
    }
    flush();
    const auto& s = data_->spans[spans[k]];
    const QRectF box(x0, top, x1 - x0, h);
    p.fillRect(box, colour_of(b));
    ++boxes_painted_;
    if (box.width() > 4) {
      p.setPen(pal.color(QPalette::Mid));
      p.drawRect(box);
    }
    if (box.width() > 36) {
      p.setPen(pal.color(QPalette::Text));
      p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 p.fontMetrics().elidedText(
                     QStringLiteral("%1 ×%2").arg(QString::fromStdString(data_->models[s.model])).arg(s.size),
                     Qt::ElideRight, static_cast<int>(box.width()) - 5));
    }
  }
  flush();
}

// A glet's duty cycle as faint ticks, where they stand far enough apart to read.
void TimelineView::paint_duty_cycle(QPainter& p, std::uint32_t slot, double top, double h) {
  const auto pal = palette();
  const double px_ns = ns_per_px();
  if (slot < data_->gpu_duty_cycle.size()) {
    const auto duty = ns(data_->gpu_duty_cycle[slot]);
    if (duty > 0 && static_cast<double>(duty) / px_ns >= 6) {
      QColor tick = pal.color(QPalette::Text);
      tick.setAlphaF(0.25f);
      p.setPen(tick);
      for (auto t = std::max<std::int64_t>(0, from_ns() / duty * duty); t <= to_ns(); t += duty) {
        const double x = x_of(t);
        if (x >= kLabelWidth) p.drawLine(QPointF(x, top), QPointF(x, top + h));
      }
    }
  }
}

// The selection and its pipeline stages on top, with the window it could have started in.
void TimelineView::paint_selection(QPainter& p, std::uint32_t slot, double top, double h) {
  const auto pal = palette();
  const double right = plot_right();
  if (const auto selected = this->selected()) {
    const auto& chosen = data_->spans[*selected];
    if (chosen.gpu == slot && chosen.window_close > chosen.window_open) {
      QColor band = pal.color(QPalette::Highlight);
      band.setAlphaF(0.35f);
      const double a = std::max(static_cast<double>(kLabelWidth), x_of(ns(chosen.window_open)));
      const double b = std::max(a + 2, std::min(right, x_of(ns(chosen.window_close))));
      p.fillRect(QRectF(a, top + h - 4, b - a, 5), band);
    }
    for (const auto i : linked_.empty() ? std::vector<std::uint32_t>{*selected} : linked_) {
      const auto& s = data_->spans[i];
      if (s.gpu != slot) continue;
      const QRectF box(x_of(ns(s.start)), top - 1, std::max(2.0, x_of(ns(s.end)) - x_of(ns(s.start))), h + 2);
      p.setPen(QPen(pal.color(QPalette::Highlight), 2, i == *selected ? Qt::SolidLine : Qt::DashLine));
      p.setBrush(Qt::NoBrush);
      p.drawRect(box);
    }
  }
}

std::vector<std::pair<QString, std::size_t>> TimelineView::nic_lanes() const {
  std::vector<std::pair<QString, std::size_t>> out;
  for (const auto& lane : nic_lanes_)
    out.emplace_back(lane.label, lane.transfers.size());
  return out;
}

void TimelineView::paint_network(QPainter& p, const Lane& lane, double y) {
  const auto pal = palette();
  const auto& nic = nic_lanes_[lane.index];
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRectF(4, y, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(nic.label, Qt::ElideMiddle, kLabelWidth - 8));
  const auto& transfers = data_->transfers;
  const auto begin = std::ranges::partition_point(
      nic.transfers, [&](std::uint32_t i) { return ns(transfers[i].start) < from_ns() - longest_transfer_; });
  const QColor colour = pal.color(QPalette::Dark);
  double run_x0 = 0, run_x1 = -1;
  for (auto it = begin; it != nic.transfers.end() && ns(transfers[*it].start) < to_ns(); ++it) {
    const auto& t = transfers[*it];
    if (ns(t.end) < from_ns()) continue;
    const double x0 = std::max(static_cast<double>(kLabelWidth), x_of(ns(t.start)));
    const double x1 = std::max(x0 + 1, std::min(static_cast<double>(plot_right()), x_of(ns(t.end))));
    if (x0 <= run_x1 + 1) {
      run_x1 = std::max(run_x1, x1);
      continue;
    }
    if (run_x1 > run_x0) p.fillRect(QRectF(run_x0, y + 5, run_x1 - run_x0, kRowHeight - 10), colour);
    run_x0 = x0;
    run_x1 = x1;
  }
  if (run_x1 > run_x0) p.fillRect(QRectF(run_x0, y + 5, run_x1 - run_x0, kRowHeight - 10), colour);
}

void TimelineView::paint_queue(QPainter& p, const Lane& lane, double y) {
  const auto pal = palette();
  const auto& samples = queue_by_model_[lane.index];
  std::uint32_t peak = 1;
  for (const auto q : samples)
    peak = std::max(peak, data_->queue[q].depth);
  p.setPen(pal.color(QPalette::Text));
  p.drawText(
      QRectF(4, y, kLabelWidth - 8, kQueueRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
      p.fontMetrics().elidedText(tr("queue %1 (≤ %2)").arg(QString::fromStdString(data_->models[lane.index])).arg(peak),
                                 Qt::ElideMiddle, kLabelWidth - 8));
  // A step curve, one vertical extent per pixel column.
  const auto first =
      std::ranges::partition_point(samples, [&](std::size_t q) { return ns(data_->queue[q].time) < from_ns(); });
  auto it = first == samples.begin() ? first : std::prev(first);
  const double base = y + kQueueRowHeight - 3, scale = (kQueueRowHeight - 6) / static_cast<double>(peak);
  QColor fill = model_colours_[lane.index];
  QPainterPath path;
  path.moveTo(kLabelWidth, base);
  double last_y = base;
  for (; it != samples.end(); ++it) {
    const auto& q = data_->queue[*it];
    const double x = std::clamp(x_of(ns(q.time)), static_cast<double>(kLabelWidth), static_cast<double>(plot_right()));
    const double qy = base - q.depth * scale;
    path.lineTo(x, last_y);
    path.lineTo(x, qy);
    last_y = qy;
    if (ns(q.time) > to_ns()) break;
  }
  path.lineTo(plot_right(), last_y);
  path.lineTo(plot_right(), base);
  path.closeSubpath();
  p.setPen(Qt::NoPen);
  p.setBrush(fill);
  p.drawPath(path);
  // Drops as red ticks along the top of the lane, one per pixel column at most.
  const auto& drops = drops_by_model_[lane.index];
  auto d = std::ranges::partition_point(drops, [&](std::size_t k) { return ns(data_->drops[k].time) < from_ns(); });
  p.setPen(QPen(late_colour(), 2));
  double last_x = -1;
  for (; d != drops.end() && ns(data_->drops[*d].time) <= to_ns(); ++d) {
    const double x = std::floor(x_of(ns(data_->drops[*d].time)));
    if (x == last_x || x < kLabelWidth) continue;
    p.drawLine(QPointF(x, y + 1), QPointF(x, y + 8));
    last_x = x;
  }
}

void TimelineView::paint_axis(QPainter& p) {
  const auto pal = palette();
  p.fillRect(QRectF(0, 0, width(), kAxisHeight), pal.color(QPalette::Window));
  const auto step = tick_step_ns(ns_per_px(), 90);
  p.setClipRect(QRectF(0, 0, plot_right(), kAxisHeight));
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRectF(4, 0, kLabelWidth - 8, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
             data_ ? QString::fromStdString(data_->system) : QString());
  std::vector<std::int64_t> shown;  // ticks right of the label column
  for (const auto t : ticks(from_ns(), to_ns(), step))
    if (x_of(t) >= kLabelWidth) shown.push_back(t);
  const auto labels = tick_labels(shown, step, origin_ns_);
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const auto t = shown[k];
    const double x = x_of(t);
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, kAxisHeight));
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlphaF(0.3f);
    p.setPen(grid);
    p.drawLine(QPointF(x, kAxisHeight), QPointF(x, height()));
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRectF(x + 3, 0, 140, kAxisHeight - 4), Qt::AlignBottom | Qt::AlignLeft, labels[k]);
  }
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(0, kAxisHeight - 0.5), QPointF(width(), kAxisHeight - 0.5));
  // The marked range's duration, over the range on the axis (M, or a drag).
  if (const auto& range = state_->range()) {
    const double a = std::max(static_cast<double>(kLabelWidth), x_of(range->from_ns));
    const double b = std::min(static_cast<double>(plot_right()), x_of(range->to_ns));
    if (b > a) {
      // A QString, not auto: a QStringBuilder would keep a reference to the temporary duration.
      const QString text = QStringLiteral("Δ ") + format_duration(range->length_ns());
      const double w = p.fontMetrics().horizontalAdvance(text) + 10;
      const QRectF label((a + b - w) / 2, 2, w, kAxisHeight - 6);
      p.fillRect(label, pal.color(QPalette::Highlight));
      p.setPen(pal.color(QPalette::HighlightedText));
      p.drawText(label, Qt::AlignCenter, text);
    }
  }
  p.setClipping(false);
}

}  // namespace servescope::widgets
