// The properties panel's text for whatever the project tree has selected: an HTML page built
// from the model types, so it shows the same facts the CLI's `info` prints.
#pragma once

#include <QString>

#include "model/scenario/scenario.h"

namespace servescope::ui {

QString project_overview_html(const Project& project);
// section/index as in ProjectTreeModel::Roles; index −1 describes the whole section.
QString item_details_html(const Project& project, int section, int index);

}  // namespace servescope::ui
