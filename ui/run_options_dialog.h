// The Run tab's "Options…": each serving family's options for its data planes (Symphony's batch
// policy and network delays, the reservation rules, glet-serving's period, a plug-in's own), one
// tab per family, made from the family's schema (engine/serving/option_schema.h) as `simulate`'s
// flags are. The values stay between runs; a run takes those of its system's family.
#pragma once

#include <QDialog>
#include <QString>

#include "engine/serving/option_schema.h"
#include "engine/serving/serving_system.h"
#include "widgets/family_option_tabs.h"

namespace servescope::ui {

class RunOptionsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit RunOptionsDialog(QWidget* parent = nullptr);

  // Shows the tab of `system`'s family (if it has options).
  void show_for(const std::string& system);
  // Writes the options of spec.system's family into the spec; the field and what is wrong with
  // it for a value the option refuses, empty when all were written.
  QString apply(engine::SimulationSpec& spec) const;
  void set_gpu_types(const QStringList& types);

 private:
  QTabWidget* tabs_;
  widgets::FamilyOptionTabs<engine::SimulationSpec> forms_;
};

}  // namespace servescope::ui
