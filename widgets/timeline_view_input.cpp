// How the timeline view answers the mouse and the keys (Perfetto's and Nsight Systems'
// conventions, README "The GUI" keys): the wheel scrolls rows and Ctrl+wheel zooms around the
// cursor; a drag marks a range, Shift+drag zooms to one, a middle (or Ctrl+) drag pans; W/S zoom
// and A/D pan around the cursor, F frames, M marks; finding by request id or model.
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/timeline/request_flow.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {
namespace {

constexpr double kKeyZoom = 1.5;  // W/S, +/−
constexpr double kKeyPan = 0.15;  // A/D, ←/→: of the window's width

}  // namespace

std::span<const TimelineView::KeyHelp> TimelineView::key_help() {
  static constexpr KeyHelp kKeys[] = {
      {QT_TR_NOOP("Wheel"), QT_TR_NOOP("Scroll the rows")},
      {QT_TR_NOOP("Ctrl+Wheel"), QT_TR_NOOP("Zoom around the cursor")},
      {QT_TR_NOOP("Shift+Wheel"), QT_TR_NOOP("Pan in time")},
      {QT_TR_NOOP("Drag"), QT_TR_NOOP("Mark a range (its summary shows beside the timeline)")},
      {QT_TR_NOOP("Shift+Drag"), QT_TR_NOOP("Zoom to a range")},
      {QT_TR_NOOP("Middle-drag or Ctrl+Drag"), QT_TR_NOOP("Pan")},
      {QT_TR_NOOP("Click"), QT_TR_NOOP("Select a batch and its flow; on a GPU's name, collapse its slots")},
      {"W / S", QT_TR_NOOP("Zoom in or out around the cursor")},
      {"A / D", QT_TR_NOOP("Pan back or forward")},
      {"F", QT_TR_NOOP("Frame the selected batch (or the marked range)")},
      {"M", QT_TR_NOOP("Mark the selected batch's time as the range")},
      {"+ / −", QT_TR_NOOP("Zoom in or out around the middle")},
      {"← / →", QT_TR_NOOP("Pan back or forward")},
      {"Page Up / Page Down", QT_TR_NOOP("Scroll the rows")},
      {"0", QT_TR_NOOP("Fit the whole run")},
      {"Alt+← / Alt+→", QT_TR_NOOP("Back and forward in the zoom history")},
      {"Esc", QT_TR_NOOP("Clear the selection, then the range")},
  };
  return kKeys;
}

double TimelineView::zoom_anchor_x() const {
  const auto at = mapFromGlobal(QCursor::pos());
  if (rect().contains(at) && at.x() >= kLabelWidth && at.x() < plot_right()) return at.x();
  return kLabelWidth + (plot_right() - kLabelWidth) / 2.0;
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const auto delta = event->angleDelta();
  if (event->modifiers() & Qt::ControlModifier) {
    zoom_around(event->position().x(), std::pow(1.0015, delta.y()));
  } else if ((event->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
    // Shift turns a vertical wheel into a horizontal one on most platforms, but not all.
    const int step = delta.x() != 0 ? delta.x() : delta.y();
    pan(-step / 1200.0);
  } else {
    set_scroll(scroll_px_ - delta.y() / 2.0);
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  press_pos_ = event->position().toPoint();
  press_from_ = from_ns();
  press_to_ = to_ns();
  press_scroll_ = scroll_px_;
  range_x_ = event->position().x();
  const bool in_labels = event->position().x() < kLabelWidth;
  if (event->button() == Qt::MiddleButton ||
      (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier)))
    gesture_ = Gesture::Pan;
  else if (event->button() == Qt::LeftButton && !in_labels)
    gesture_ = event->modifiers() & Qt::ShiftModifier ? Gesture::ZoomRange : Gesture::Range;
  else
    gesture_ = Gesture::None;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (gesture_ == Gesture::Pan) {
    const auto dt = static_cast<std::int64_t>(std::llround((event->position().x() - press_pos_.x()) * ns_per_px()));
    set_scroll(press_scroll_ - (event->position().y() - press_pos_.y()));
    state_->move_window(press_from_ - dt, press_to_ - dt);
  } else if (gesture_ == Gesture::Range || gesture_ == Gesture::ZoomRange) {
    range_x_ = std::clamp(event->position().x(), static_cast<double>(kLabelWidth), static_cast<double>(plot_right()));
    if (gesture_ == Gesture::Range && std::abs(range_x_ - press_pos_.x()) >= 4)
      state_->set_range(TimeRange{time_at(std::min<double>(range_x_, press_pos_.x())),
                                  time_at(std::max<double>(range_x_, press_pos_.x()))});
    update();
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const auto gesture = std::exchange(gesture_, Gesture::None);
  const bool click = (event->position().toPoint() - press_pos_).manhattanLength() < 4;
  if (event->button() == Qt::LeftButton && click && event->position().x() < kLabelWidth) {
    // A GPU's name: collapse or open its slots.
    if (const auto* lane = lane_at(event->position().y());
        lane && data_ && (lane->kind == Lane::Kind::Slot || lane->kind == Lane::Kind::Group)) {
      const auto physical = physical_of(index_.slot(lane->index));
      if (group_size_[physical] > 1) set_collapsed(physical, lane->kind == Lane::Kind::Slot);
    }
  } else if (event->button() == Qt::LeftButton && click && gesture != Gesture::Pan) {
    select(span_at(event->position()));
  } else if (gesture == Gesture::ZoomRange) {
    const double a = std::min<double>(range_x_, press_pos_.x());
    const double b = std::max<double>(range_x_, press_pos_.x());
    if (b - a >= 2) set_window(time_at(std::max<double>(a, kLabelWidth)), time_at(b));
  } else if (gesture == Gesture::Pan) {
    state_->commit_window();
  }
  update();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  if (event->modifiers() & Qt::AltModifier) {
    if (event->key() == Qt::Key_Left) back();
    if (event->key() == Qt::Key_Right) forward();
    return;
  }
  const double middle = kLabelWidth + (plot_right() - kLabelWidth) / 2.0;
  switch (event->key()) {
    case Qt::Key_W:
      zoom_around(zoom_anchor_x(), kKeyZoom);
      break;
    case Qt::Key_S:
      zoom_around(zoom_anchor_x(), 1 / kKeyZoom);
      break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom_around(middle, kKeyZoom);
      break;
    case Qt::Key_Minus:
      zoom_around(middle, 1 / kKeyZoom);
      break;
    case Qt::Key_A:
    case Qt::Key_Left:
      pan(-kKeyPan);
      break;
    case Qt::Key_D:
    case Qt::Key_Right:
      pan(kKeyPan);
      break;
    case Qt::Key_F:
      zoom_to_selection();
      break;
    case Qt::Key_M:
      mark_selection();
      break;
    case Qt::Key_PageUp:
      set_scroll(scroll_px_ - (height() - lanes_top()) * 0.8);
      break;
    case Qt::Key_PageDown:
      set_scroll(scroll_px_ + (height() - lanes_top()) * 0.8);
      break;
    case Qt::Key_0:
      zoom_to_fit();
      break;
    case Qt::Key_Escape:
      if (selected())
        select(std::nullopt);
      else
        state_->set_range(std::nullopt);
      break;
    default:
      QWidget::keyPressEvent(event);
  }
}

QString TimelineView::find_next(const QString& text) {
  const auto wanted = text.trimmed();
  if (!data_ || wanted.isEmpty()) return {};
  std::optional<std::uint32_t> found;
  QString what;
  bool numeric = false;
  const auto id = wanted.toULongLong(&numeric);
  if (numeric) {
    found = engine::first_batch_of_request(*data_, id);
    if (found) what = tr("request %1: first carried by this batch").arg(id);
  }
  if (!found) {
    // The next batch of a matching model after the selection, or after the window's start;
    // wrapping around once.
    std::vector<bool> matches(data_->models.size());
    for (std::size_t m = 0; m < matches.size(); ++m)
      matches[m] = QString::fromStdString(data_->models[m]).contains(wanted, Qt::CaseInsensitive);
    if (std::ranges::find(matches, true) == matches.end()) return {};
    const auto after = selected();
    const auto first =
        after ? *after + 1
              : static_cast<std::uint32_t>(std::ranges::lower_bound(data_->spans, engine::Time::nanoseconds(from_ns()),
                                                                    {}, &engine::TimelineSpan::start) -
                                           data_->spans.begin());
    const auto n = static_cast<std::uint32_t>(data_->spans.size());
    for (std::uint32_t k = 0; k < n && !found; ++k) {
      const auto i = (first + k) % n;
      if (matches[data_->spans[i].model]) found = i;
    }
    if (found) what = tr("next %1 batch").arg(QString::fromStdString(data_->models[data_->spans[*found].model]));
  }
  if (!found) return {};
  select(found);
  const auto& s = data_->spans[*found];
  reveal(ns(s.start), s.gpu);
  return what;
}

}  // namespace servescope::widgets
