#include "ui/run_options_dialog.h"

#include <QDialogButtonBox>
#include <QFrame>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/systems/system_registry.h"
#include "widgets/option_form.h"

namespace servescope::ui {

RunOptionsDialog::RunOptionsDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("runOptions"));
  setWindowTitle(tr("Serving system options"));
  tabs_ = new QTabWidget(this);
  const engine::SimulationSpec defaults;
  for (const auto& family : engine::SystemRegistry::instance().families()) {
    if (family->data_planes().empty()) continue;
    auto schema = family->simulation_options();
    if (schema.options().empty()) continue;
    auto* form = widgets::make_option_form(schema, defaults);
    const auto title = QString::fromUtf8(family->title().data(), static_cast<qsizetype>(family->title().size()));
    form->setObjectName(QStringLiteral("options:") + title);
    auto* scroll = new QScrollArea(tabs_);
    scroll->setWidget(form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tabs_->addTab(scroll, title);
    forms_.push_back(FamilyOptions{family.get(), std::move(schema), form});
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
  auto* box = new QVBoxLayout(this);
  box->addWidget(tabs_, 1);
  box->addWidget(buttons);
  resize(560, 460);
}

void RunOptionsDialog::show_for(const std::string& system) {
  const auto planes = engine::data_planes();
  if (std::ranges::any_of(planes, [&](const auto& t) { return t.name == system; })) {
    const auto* family = &engine::data_plane_family(system);
    for (std::size_t i = 0; i < forms_.size(); ++i)
      if (forms_[i].family == family) tabs_->setCurrentIndex(static_cast<int>(i));
  }
  show();
  raise();
  activateWindow();
}

QString RunOptionsDialog::apply(engine::SimulationSpec& spec) const {
  const auto* family = &engine::data_plane_family(spec.system);
  const auto own = std::ranges::find(forms_, family, &FamilyOptions::family);
  if (own == forms_.end()) return {};
  return widgets::apply_form(*own->form, own->schema, spec);
}

void RunOptionsDialog::set_gpu_types(const QStringList& types) {
  for (const auto& f : forms_)
    f.form->set_gpu_types(types);
}

}  // namespace servescope::ui
