// Edit → Add estimated models (docs/estimator.md): the built-in CNN architectures to tick, each
// with its description, and the GPU types to estimate them on (the cluster's, ticked), instead
// of names typed from memory.
#pragma once

#include <QStringList>
#include <optional>
#include <utility>

class QWidget;

namespace servescope::ui {

// The architectures and GPU types chosen; nullopt when the user cancelled.
std::optional<std::pair<QStringList, QStringList>> ask_estimated_models(QWidget* parent, const QStringList& gpu_types);

}  // namespace servescope::ui
