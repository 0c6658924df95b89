#include "widgets/option_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <climits>
#include <cmath>

#include "model/core/error.h"

namespace servescope::widgets {
namespace {

using engine::OptionType;

QString text_of(const engine::OptionValue& value) {
  return QString::fromStdString(engine::format_option_value(value));
}

// Enough decimals to show the default exactly (a MIP gap of 1e-6), and at least three.
int decimals_for(double value) {
  for (int d = 3; d < 9; ++d) {
    const double scale = std::pow(10.0, d);
    if (std::abs(std::round(value * scale) / scale - value) < 1e-12) return d;
  }
  return 9;
}

int clamped_int(double x) {
  return static_cast<int>(std::clamp(x, static_cast<double>(INT_MIN), static_cast<double>(INT_MAX)));
}

}  // namespace

OptionForm::OptionForm(std::vector<engine::OptionSpec> specs, const std::vector<engine::OptionValue>& defaults,
                       QWidget* parent)
    : QWidget(parent), specs_(std::move(specs)) {
  auto* layout = new QFormLayout(this);
  layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  // Docks are narrow: a field that does not fit beside its label goes below it.
  layout->setRowWrapPolicy(QFormLayout::WrapLongRows);
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const auto& spec = specs_[i];
    QWidget* field = nullptr;
    switch (spec.type) {
      case OptionType::Flag: {
        auto* box = new QCheckBox(this);
        connect(box, &QCheckBox::toggled, this, &OptionForm::edited);
        field = box;
        break;
      }
      case OptionType::Integer: {
        auto* box = new QSpinBox(this);
        box->setRange(clamped_int(spec.min), clamped_int(spec.max));
        box->setSuffix(QString::fromStdString(spec.unit));
        connect(box, &QSpinBox::valueChanged, this, &OptionForm::edited);
        field = box;
        break;
      }
      case OptionType::Real: {
        auto* box = new QDoubleSpinBox(this);
        const double shown =
            i < defaults.size() && std::holds_alternative<double>(defaults[i]) ? std::get<double>(defaults[i]) : 0.0;
        box->setDecimals(decimals_for(shown));
        box->setRange(spec.min, spec.max);
        box->setSingleStep(spec.max - spec.min <= 1 ? 0.05 : 1.0);
        box->setSuffix(QString::fromStdString(spec.unit));
        connect(box, &QDoubleSpinBox::valueChanged, this, &OptionForm::edited);
        field = box;
        break;
      }
      case OptionType::Choice: {
        auto* box = new QComboBox(this);
        for (const auto& c : spec.choices)
          box->addItem(QString::fromStdString(c));
        connect(box, &QComboBox::currentIndexChanged, this, &OptionForm::edited);
        field = box;
        break;
      }
      case OptionType::Text:
        if (spec.hint == engine::OptionHint::ClusterGpuType) {
          auto* box = new QComboBox(this);
          box->addItem(tr("(automatic)"), QString());
          connect(box, &QComboBox::currentIndexChanged, this, &OptionForm::edited);
          field = box;
          break;
        }
        [[fallthrough]];
      case OptionType::IntegerList:
      case OptionType::TextList: {
        auto* line = new QLineEdit(this);
        line->setPlaceholderText(spec.type == OptionType::TextList ? tr("none (items separated by spaces)")
                                                                   : tr("default (see the tool tip)"));
        connect(line, &QLineEdit::textEdited, this, &OptionForm::edited);
        field = line;
        break;
      }
    }
    field->setObjectName(QStringLiteral("option:") + QString::fromStdString(spec.name));
    field->setToolTip(QString::fromStdString(spec.help));
    auto* label = new QLabel(QString::fromStdString(spec.label), this);
    label->setToolTip(field->toolTip());
    label->setBuddy(field);
    layout->addRow(label, field);
    fields_.push_back(field);
  }
  set_values(defaults);
}

void OptionForm::set_values(const std::vector<engine::OptionValue>& values) {
  for (std::size_t i = 0; i < fields_.size() && i < values.size(); ++i) {
    const auto& value = values[i];
    QWidget* field = fields_[i];
    if (auto* box = qobject_cast<QCheckBox*>(field)) {
      box->setChecked(std::holds_alternative<bool>(value) && std::get<bool>(value));
    } else if (auto* spin = qobject_cast<QSpinBox*>(field)) {
      if (std::holds_alternative<std::int64_t>(value))
        spin->setValue(clamped_int(static_cast<double>(std::get<std::int64_t>(value))));
    } else if (auto* real = qobject_cast<QDoubleSpinBox*>(field)) {
      if (std::holds_alternative<double>(value)) real->setValue(std::get<double>(value));
    } else if (auto* combo = qobject_cast<QComboBox*>(field)) {
      const auto text = text_of(value);
      if (specs_[i].type == OptionType::Choice) {
        combo->setCurrentIndex(std::max(0, combo->findText(text)));
      } else {  // a GPU type: keep it listed even before the scenario's types arrive
        if (!text.isEmpty() && combo->findData(text) < 0) combo->addItem(text, text);
        combo->setCurrentIndex(std::max(0, combo->findData(text)));
      }
    } else if (auto* line = qobject_cast<QLineEdit*>(field)) {
      line->setText(text_of(value));
    }
  }
}

void OptionForm::set_gpu_types(const QStringList& types) {
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (specs_[i].hint != engine::OptionHint::ClusterGpuType) continue;
    auto* combo = qobject_cast<QComboBox*>(fields_[i]);
    if (!combo) continue;
    const auto current = combo->currentData().toString();
    const QSignalBlocker quiet(combo);
    combo->clear();
    // Unnamed, the planner picks a type every model is profiled on (engine/glet/glet_scenario.cpp).
    combo->addItem(types.size() == 1 ? tr("(the cluster's only type)") : tr("(a type the profiles split)"), QString());
    for (const auto& t : types)
      combo->addItem(t, t);
    combo->setCurrentIndex(std::max(0, combo->findData(current)));
  }
}

std::optional<std::vector<engine::OptionValue>> OptionForm::values(QString* error) const {
  std::vector<engine::OptionValue> out;
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const auto& spec = specs_[i];
    QWidget* field = fields_[i];
    try {
      if (auto* box = qobject_cast<QCheckBox*>(field)) {
        out.emplace_back(box->isChecked());
      } else if (auto* spin = qobject_cast<QSpinBox*>(field)) {
        out.emplace_back(static_cast<std::int64_t>(spin->value()));
      } else if (auto* real = qobject_cast<QDoubleSpinBox*>(field)) {
        out.emplace_back(real->value());
      } else if (auto* combo = qobject_cast<QComboBox*>(field)) {
        out.emplace_back(spec.type == OptionType::Choice ? combo->currentText().toStdString()
                                                         : combo->currentData().toString().toStdString());
      } else if (auto* line = qobject_cast<QLineEdit*>(field)) {
        const auto text = line->text().trimmed();
        if (spec.type == OptionType::TextList) {
          std::vector<std::string> items;
          for (const auto& item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
            items.push_back(item.toStdString());
          out.emplace_back(std::move(items));
        } else if (spec.type == OptionType::IntegerList && text.isEmpty()) {
          out.emplace_back(std::vector<int>{});  // the option's default
        } else {
          out.push_back(engine::parse_option_value(spec, text.toStdString()));
        }
      }
    } catch (const Error& e) {
      if (error) *error = QStringLiteral("%1: %2").arg(QString::fromStdString(spec.label), QString::fromUtf8(e.what()));
      return std::nullopt;
    }
  }
  return out;
}

QWidget* OptionForm::field(const QString& name) const {
  return findChild<QWidget*>(QStringLiteral("option:") + name);
}

}  // namespace servescope::widgets
