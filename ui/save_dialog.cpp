#include "ui/save_dialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>

namespace servescope::ui {

QString with_filter_suffix(const QString& path, const QString& filter) {
  if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
  static const QRegularExpression first_pattern(QStringLiteral(R"(\*\.([A-Za-z0-9_.+-]+))"));
  const auto match = first_pattern.match(filter);
  return match.hasMatch() ? path + QLatin1Char('.') + match.captured(1) : path;
}

QString ask_save_path(QWidget* parent, const QString& title, const QString& suggested, const QString& filters) {
  QString chosen_filter;
  const auto path = QFileDialog::getSaveFileName(parent, title, suggested, filters, &chosen_filter);
  return with_filter_suffix(path,
                            chosen_filter.isEmpty() ? filters.section(QStringLiteral(";;"), 0, 0) : chosen_filter);
}

}  // namespace servescope::ui
