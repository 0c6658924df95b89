// One tab per serving family, each holding the OptionForm of that family's options
// (option_form.h): the planning dock's planner options and the Run tab's data-plane options.
// A run or plan takes its own family's tab; ticking or choosing a system shows its tab.
#pragma once

#include <QFrame>
#include <QScrollArea>
#include <QStringList>
#include <QTabWidget>
#include <algorithm>
#include <vector>

#include "engine/serving/serving_system.h"
#include "widgets/option_form.h"

namespace servescope::widgets {

template <class Target>
class FamilyOptionTabs {
 public:
  explicit FamilyOptionTabs(QTabWidget* tabs) : tabs_(tabs) {}

  // A tab for `family`, its form showing the defaults; nothing for a family without options.
  void add(const engine::ServingFamily& family, engine::OptionSchema<Target> schema) {
    if (schema.options().empty()) return;
    auto* form = make_option_form(schema, Target{});
    const auto title = QString::fromUtf8(family.title().data(), static_cast<qsizetype>(family.title().size()));
    form->setObjectName(QStringLiteral("options:") + title);
    auto* scroll = new QScrollArea(tabs_);
    scroll->setWidget(form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the form wraps its rows instead
    tabs_->addTab(scroll, title);
    entries_.push_back(Entry{&family, std::move(schema), form});
  }

  void show(const engine::ServingFamily& family) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].family == &family) tabs_->setCurrentIndex(static_cast<int>(i));
  }

  // Writes `family`'s form into `target`; "Tab: field: why" for a value refused, empty when all
  // were written (or the family has no tab).
  QString apply(const engine::ServingFamily& family, Target& target) const {
    const auto it = std::ranges::find(entries_, &family, &Entry::family);
    if (it == entries_.end()) return {};
    const auto why = apply_form(*it->form, it->schema, target);
    if (why.isEmpty()) return {};
    return QStringLiteral("%1: %2").arg(tabs_->tabText(static_cast<int>(it - entries_.begin())), why);
  }

  void set_gpu_types(const QStringList& types) {
    for (const auto& e : entries_)
      e.form->set_gpu_types(types);
  }

  std::vector<const engine::ServingFamily*> families() const {
    std::vector<const engine::ServingFamily*> out;
    for (const auto& e : entries_)
      out.push_back(e.family);
    return out;
  }

 private:
  struct Entry {
    const engine::ServingFamily* family;
    engine::OptionSchema<Target> schema;
    OptionForm* form;
  };
  QTabWidget* tabs_;
  std::vector<Entry> entries_;
};

}  // namespace servescope::widgets
