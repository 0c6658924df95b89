#include "ui/run_options_dialog.h"

#include <QDialogButtonBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/systems/system_registry.h"

namespace servescope::ui {

RunOptionsDialog::RunOptionsDialog(QWidget* parent) : QDialog(parent), tabs_(new QTabWidget(this)), forms_(tabs_) {
  setObjectName(QStringLiteral("runOptions"));
  setWindowTitle(tr("Serving system options"));
  for (const auto& family : engine::SystemRegistry::instance().families())
    if (!family->data_planes().empty()) forms_.add(*family, family->simulation_options());
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
  auto* box = new QVBoxLayout(this);
  box->addWidget(tabs_, 1);
  box->addWidget(buttons);
  resize(560, 460);
}

void RunOptionsDialog::show_for(const std::string& system) {
  const auto planes = engine::data_planes();
  if (std::ranges::any_of(planes, [&](const auto& t) { return t.name == system; }))
    forms_.show(engine::data_plane_family(system));
  show();
  raise();
  activateWindow();
}

QString RunOptionsDialog::apply(engine::SimulationSpec& spec) const {
  return forms_.apply(engine::data_plane_family(spec.system), spec);
}

void RunOptionsDialog::set_gpu_types(const QStringList& types) {
  forms_.set_gpu_types(types);
}

}  // namespace servescope::ui
