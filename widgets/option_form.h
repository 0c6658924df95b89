// A form for one serving family's options, generated from its schema
// (engine/serving/option_schema.h) as the command line's flags are: a spin box per number with
// its range and unit, a check box per flag, a combo box per choice (or per GPU type of the
// cluster, for options that name one), a line edit per list. Each field's tool tip is the
// option's help. The form holds values only; writing them into a spec or request is the
// schema's (apply_form below), so the GUI and the CLI set options the same way.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "engine/serving/option_schema.h"

namespace servescope::widgets {

class OptionForm : public QWidget {
  Q_OBJECT
 public:
  OptionForm(std::vector<engine::OptionSpec> specs, const std::vector<engine::OptionValue>& defaults,
             QWidget* parent = nullptr);

  // The fields' values, in the order of the specs; nullopt with `error` naming the field and
  // what is wrong with it for a value that does not parse.
  std::optional<std::vector<engine::OptionValue>> values(QString* error) const;
  void set_values(const std::vector<engine::OptionValue>& values);
  // What a GPU-type field offers: the scenario's types (the field keeps its choice if it is
  // still there).
  void set_gpu_types(const QStringList& types);
  // The field of option `name` (its object name is "option:NAME"), or null.
  QWidget* field(const QString& name) const;
  const std::vector<engine::OptionSpec>& specs() const { return specs_; }

 Q_SIGNALS:
  void edited();

 private:
  std::vector<engine::OptionSpec> specs_;
  std::vector<QWidget*> fields_;
};

// A form over `schema`'s options, showing the values `defaults` holds.
template <class Target>
OptionForm* make_option_form(const engine::OptionSchema<Target>& schema, const Target& defaults,
                             QWidget* parent = nullptr) {
  std::vector<engine::OptionSpec> specs;
  std::vector<engine::OptionValue> values;
  for (const auto& o : schema.options()) {
    specs.push_back(o.spec);
    values.push_back(o.read(defaults));
  }
  return new OptionForm(std::move(specs), values, parent);
}

// Writes the form's values into `target` through the schema; the error (field and reason) for a
// value the form or the option refuses, empty when all were written.
template <class Target>
QString apply_form(const OptionForm& form, const engine::OptionSchema<Target>& schema, Target& target) {
  QString error;
  const auto values = form.values(&error);
  if (!values) return error;
  const auto& options = schema.options();
  for (std::size_t i = 0; i < options.size() && i < values->size(); ++i) {
    try {
      options[i].write(target, (*values)[i]);
    } catch (const std::exception& e) {
      return QStringLiteral("%1: %2").arg(QString::fromStdString(options[i].spec.label), QString::fromUtf8(e.what()));
    }
  }
  return {};
}

}  // namespace servescope::widgets
