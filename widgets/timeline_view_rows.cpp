// Which rows the timeline shows and where it is scrolled: the filter, collapsed GPU groups, the
// lanes' layout, the vertical scroll bar, and bringing a row (or the rows a plan part runs on)
// into view.
#include <QScrollBar>
#include <algorithm>

#include "widgets/timeline_view.h"

namespace servescope::widgets {

void TimelineView::apply_filter() {
  if (data_) {
    const auto& filter = state_->filter();
    filter_names_models_ = false;
    for (std::size_t m = 0; m < data_->models.size(); ++m) {
      model_visible_[m] =
          filter.isEmpty() || QString::fromStdString(data_->models[m]).contains(filter, Qt::CaseInsensitive);
      filter_names_models_ = filter_names_models_ || (!filter.isEmpty() && model_visible_[m]);
    }
    if (!filter_names_models_) model_visible_.assign(data_->models.size(), true);  // the text names GPUs
  }
  rebuild_rows();
  update();
}

void TimelineView::set_collapsed(std::uint32_t physical_gpu, bool collapsed) {
  if (collapsed == this->collapsed(physical_gpu)) return;
  if (collapsed)
    collapsed_.insert(physical_gpu);
  else
    collapsed_.erase(physical_gpu);
  rebuild_rows();
  update();
}

void TimelineView::rebuild_rows() {
  lanes_.clear();
  row_lane_.assign(index_.rows(), SIZE_MAX);
  if (data_) {
    const auto& filter = state_->filter();
    double top = 0;
    for (std::size_t r = 0; r < index_.rows(); ++r) {
      const auto slot = index_.slot(r);
      if (!filter.isEmpty() && !filter_names_models_ &&
          !QString::fromStdString(data_->gpus[slot]).contains(filter, Qt::CaseInsensitive))
        continue;
      // A collapsed GPU's slots share its first shown row's lane.
      if (collapsed(physical_of(slot)) && !lanes_.empty() && lanes_.back().kind == Lane::Kind::Group &&
          physical_of(index_.slot(lanes_.back().index)) == physical_of(slot)) {
        ++lanes_.back().rows;
        row_lane_[r] = lanes_.size() - 1;
        continue;
      }
      row_lane_[r] = lanes_.size();
      const auto kind = collapsed(physical_of(slot)) ? Lane::Kind::Group : Lane::Kind::Slot;
      lanes_.push_back({kind, r, 1, top, kRowHeight});
      top += kRowHeight;
    }
    for (std::size_t n = 0; n < nic_lanes_.size(); ++n) {
      lanes_.push_back({Lane::Kind::Network, n, 1, top, kRowHeight});
      top += kRowHeight;
    }
    for (std::size_t m = 0; m < queue_by_model_.size(); ++m)
      if ((!queue_by_model_[m].empty() || !drops_by_model_[m].empty()) && model_visible_[m]) {
        lanes_.push_back({Lane::Kind::Queue, m, 1, top, kQueueRowHeight});
        top += kQueueRowHeight;
      }
  }
  sync_scrollbar();
}

double TimelineView::content_height() const {
  return lanes_.empty() ? 0 : lanes_.back().top + lanes_.back().height;
}

void TimelineView::sync_scrollbar() {
  const double visible = height() - lanes_top();
  const double spare = content_height() - visible;
  const bool needed = spare > 0;
  if (vbar_->isVisible() != needed) {
    vbar_->setVisible(needed);
    update();
  }
  vbar_->setGeometry(width() - vbar_->sizeHint().width(), static_cast<int>(lanes_top()), vbar_->sizeHint().width(),
                     std::max(0, height() - static_cast<int>(lanes_top())));
  const QSignalBlocker quiet(vbar_);
  vbar_->setRange(0, needed ? static_cast<int>(std::ceil(spare)) : 0);
  vbar_->setPageStep(static_cast<int>(visible));
  vbar_->setSingleStep(kRowHeight);
  scroll_px_ = std::clamp(scroll_px_, 0.0, std::max(0.0, spare));
  vbar_->setValue(static_cast<int>(std::lround(scroll_px_)));
}

void TimelineView::set_scroll(double px) {
  const double spare = std::max(0.0, content_height() - (height() - lanes_top()));
  const double next = std::clamp(px, 0.0, spare);
  if (next == scroll_px_) return;
  scroll_px_ = next;
  const QSignalBlocker quiet(vbar_);
  vbar_->setValue(static_cast<int>(std::lround(scroll_px_)));
  update();
}

void TimelineView::reveal(std::int64_t at_ns, std::optional<std::uint32_t> slot, std::optional<std::uint32_t> model) {
  if (at_ns < from_ns() || at_ns > to_ns()) {
    const auto half = (to_ns() - from_ns()) / 2;
    set_window(at_ns - half, at_ns + half);
  }
  if (slot) {
    scroll_to_slot(*slot);
    return;
  }
  const auto queue = [&](const Lane& lane) { return model && lane.kind == Lane::Kind::Queue && lane.index == *model; };
  if (const auto it = std::ranges::find_if(lanes_, queue); it != lanes_.end()) scroll_to_lane(*it);
}

void TimelineView::scroll_to_slot(std::uint32_t slot) {
  if (!data_ || slot >= data_->gpus.size()) return;
  set_collapsed(physical_of(slot), false);
  if (const auto row = index_.row_of_slot(slot))
    if (const auto* lane = lane_of_row(*row)) scroll_to_lane(*lane);
}

bool TimelineView::row_in_view(std::uint32_t slot) const {
  const double visible = height() - lanes_top();
  return std::ranges::any_of(lanes_, [&](const Lane& lane) {
    return lane.kind == Lane::Kind::Slot && index_.slot(lane.index) == slot && lane.top >= scroll_px_ &&
           lane.top + lane.height <= scroll_px_ + visible;
  });
}

void TimelineView::scroll_to_lane(const Lane& lane) {
  const double visible = height() - lanes_top();
  // Already whole in view: stay, so stepping through nearby rows does not jump.
  if (lane.top >= scroll_px_ && lane.top + lane.height <= scroll_px_ + visible) return;
  set_scroll(lane.top - visible / 3);
}

void TimelineView::mark_rows(std::vector<std::uint32_t> slots) {
  std::erase_if(slots, [&](std::uint32_t s) { return !data_ || s >= data_->gpus.size(); });
  marked_slots_ = std::set<std::uint32_t>(slots.begin(), slots.end());
  if (!slots.empty()) scroll_to_slot(*std::ranges::min_element(slots));
  update();
}

bool TimelineView::lane_marked(const Lane& lane) const {
  if (marked_slots_.empty() || (lane.kind != Lane::Kind::Slot && lane.kind != Lane::Kind::Group)) return false;
  for (std::size_t row = lane.index; row < lane.index + lane.rows; ++row)
    if (marked_slots_.contains(index_.slot(row))) return true;
  return false;
}

}  // namespace servescope::widgets
