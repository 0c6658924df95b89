#include "ui/help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "widgets/timeline_view.h"

namespace servescope::ui {
namespace {

QString resource_text(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return QObject::tr("(%1 is missing from this build)").arg(path);
  return QString::fromUtf8(file.readAll());
}

// A closable window around `body`, deleted on close.
QDialog* help_window(QWidget* parent, const QString& title, QWidget* body, const QString& name) {
  auto* dialog = new QDialog(parent);
  dialog->setObjectName(name);
  dialog->setWindowTitle(title);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  body->setParent(dialog);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* box = new QVBoxLayout(dialog);
  box->addWidget(body, 1);
  box->addWidget(buttons);
  dialog->resize(820, 640);
  dialog->show();
  return dialog;
}

}  // namespace

void show_user_guide(QWidget* parent) {
  auto* text = new QTextBrowser;
  text->setOpenExternalLinks(true);
  text->setMarkdown(resource_text(QStringLiteral(":/README.md")));
  help_window(parent, QObject::tr("ServeScope user guide"), text, QStringLiteral("userGuide"));
}

void show_keys(QWidget* parent, const QList<QAction*>& actions) {
  auto* table = new QTableWidget(0, 2);
  table->setHorizontalHeaderLabels({QObject::tr("Keys"), QObject::tr("Does")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  const auto add = [table](const QString& keys, const QString& does) {
    const int row = table->rowCount();
    table->insertRow(row);
    table->setItem(row, 0, new QTableWidgetItem(keys));
    table->setItem(row, 1, new QTableWidgetItem(does));
  };
  for (const auto* action : actions)
    if (!action->shortcut().isEmpty())
      add(action->shortcut().toString(QKeySequence::NativeText), action->text().remove(QLatin1Char('&')));
  // Keys the timeline handles itself, which no action carries.
  for (const auto& [keys, does] : widgets::TimelineView::key_help())
    add(QObject::tr("%1 (timeline)").arg(widgets::TimelineView::tr(keys)), widgets::TimelineView::tr(does));
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  help_window(parent, QObject::tr("Keyboard shortcuts"), table, QStringLiteral("keysHelp"));
}

void show_licence(QWidget* parent) {
  auto* text = new QPlainTextEdit;
  text->setReadOnly(true);
  text->setPlainText(
      QObject::tr("ServeScope is free software under the GNU General Public License, version 3 or (at your "
                  "option) any later version.\n\n") +
      resource_text(QStringLiteral(":/LICENSE")));
  help_window(parent, QObject::tr("Licence"), text, QStringLiteral("licenceHelp"));
}

}  // namespace servescope::ui
