#include "ui/plan_view.h"

#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>
#include <variant>

#include "engine/planning/plan_diagram.h"
#include "engine/serving/stored_plan.h"
#include "engine/systems/scenario_planner.h"
#include "model/core/error.h"
#include "ui/project_document.h"
#include "widgets/model_colors.h"
#include "widgets/plan_diagram_view.h"

namespace servescope::ui {
namespace {

QString esc(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}
QString num(double v, int digits = 1) {
  return QString::number(v, 'f', digits);
}
QString ms(double us) {
  return num(us / 1000.0, 2) + QStringLiteral(" ms");
}

QString ms(Duration d) {
  return ms(d.to_us());
}

QString pipeline_html(const engine::PipelinePlan& plan) {
  QString h;
  h += QStringLiteral("<p>%1 req/s in all.</p>").arg(num(plan.total_throughput_rps()));
  const auto& solve = plan.solve;
  if (!solve.solver.empty())
    h += QStringLiteral("<p>%1, solved by the %2 (%3) in %4.</p>")
             .arg(esc(solve.objective_kind), esc(solve.solver), esc(solve.status),
                  solve.seconds < 1 ? num(1000 * solve.seconds, solve.seconds < 1e-3 ? 2 : 1) + QStringLiteral(" ms")
                                    : num(solve.seconds, 2) + QStringLiteral(" s"));
  if (!solve.stages.empty()) {
    // What each lexicographic stage raised the free models to, and whom it then held there.
    h += QStringLiteral(
        "<table border=1 cellpadding=4><tr><th>stage</th><th>req/s per unit of weight</th>"
        "<th>held from then on</th></tr>");
    for (std::size_t i = 0; i < solve.stages.size(); ++i) {
      QStringList held;
      for (const auto& name : solve.stages[i].fixed_models)
        held << esc(name);
      h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>")
               .arg(i + 1)
               .arg(num(solve.stages[i].level), held.join(QStringLiteral(", ")));
    }
    h += QStringLiteral("</table>");
  }
  for (const auto& m : plan.models) {
    h +=
        QStringLiteral("<h3>%1</h3><p>planned %2 req/s, SLO %3</p>").arg(esc(m.name), num(m.throughput_rps), ms(m.slo));
    for (const auto& p : plan.pipelines) {
      if (p.model != m.name) continue;
      // The pool with the least capacity limits the pipeline.
      double least = 1e300;
      for (const auto& d : p.partitions)
        least = std::min(least, d.capacity_rps);
      h += QStringLiteral(
               "<p>batch %1, latency %2, assigned %3 req/s:</p><table border=1 cellpadding=4><tr>"
               "<th>pool</th><th>GPU</th><th>vGPU</th><th>GPUs</th><th>blocks</th><th>capacity</th>"
               "<th>transfer</th></tr>")
               .arg(p.batch)
               .arg(ms(p.latency))
               .arg(num(p.assigned_rps));
      int k = 0;
      for (const auto& d : p.partitions) {
        const bool bottleneck = d.capacity_rps <= least;
        h += QStringLiteral(
                 "<tr%1><td>%2%3</td><td>%4</td><td>1/%5</td><td>%6</td><td>%7–%8</td><td>%9 req/s</td>"
                 "<td>%10</td></tr>")
                 .arg(bottleneck ? QStringLiteral(" style=\"font-weight:bold\"") : QString())
                 .arg(++k)
                 .arg(bottleneck ? QStringLiteral(" (bottleneck)") : QString())
                 .arg(esc(d.gpu))
                 .arg(d.vgpu_divisor)
                 .arg(d.gpus)
                 .arg(d.blocks.begin)
                 .arg(d.blocks.end)
                 .arg(num(d.capacity_rps))
                 .arg(ms(d.transfer));
      }
      h += QStringLiteral("</table>");
    }
  }
  return h;
}

QString model_color(const std::string& model) {
  return widgets::color_for_name(QString::fromStdString(model), QGuiApplication::palette()).name();
}

// One bar per GPU, split into its glets in proportion to their size; each glet takes the colour
// of the model it serves most (a time-shared glet lists all, each with its colour square).
QString glet_html(const engine::GletPlan& plan, const Cluster& cluster) {
  // plan.gpus is where the planner's scaling stopped, not what the cluster has ("1 of 1 V100
  // GPUs" on a cluster of 4).
  const auto by_type = cluster.gpus_by_type();
  const auto there = by_type.find(plan.gpu);
  QString h = QStringLiteral("<p>%1 of the cluster's %2 %3 GPUs used (the planner scaled up to %4).</p>")
                  .arg(plan.layout.gpus_used())
                  .arg(there == by_type.end() ? 0 : there->second)
                  .arg(esc(plan.gpu))
                  .arg(plan.gpus);
  h += QStringLiteral("<table cellpadding=3><tr>");
  for (const auto& m : plan.models)
    h += QStringLiteral("<td bgcolor=\"%1\">&nbsp;&nbsp;</td><td>%2: %3 of %4 req/s placed</td>")
             .arg(model_color(m.name), esc(m.name), num(m.assigned_rps), num(m.rate_rps));
  h += QStringLiteral("</tr></table>");
  const auto name_of = [&](int model) {
    return model >= 0 && static_cast<std::size_t>(model) < plan.models.size()
               ? plan.models[static_cast<std::size_t>(model)].name
               : std::string("?");
  };
  const auto midlight = QGuiApplication::palette().color(QPalette::Midlight).name();
  int g = 0;
  for (const auto& gpu : plan.layout.gpus) {
    h += QStringLiteral("<p><b>GPU %1</b></p><table width=\"100%\" cellspacing=0 cellpadding=4 border=1><tr>").arg(g++);
    for (const auto& glet : gpu.glets) {
      std::string dominant;
      double most = -1;
      QString models;
      double interference = 1;
      for (const auto& a : glet.models) {
        const auto name = name_of(a.model);
        if (a.rate_rps > most) {
          most = a.rate_rps;
          dominant = name;
        }
        interference = std::max(interference, a.interference);
        models += QStringLiteral("<br><font color=\"%1\">■</font> %2 batch %3, %4 req/s")
                      .arg(model_color(name), esc(name))
                      .arg(a.batch)
                      .arg(num(a.rate_rps));
      }
      const bool free = glet.free();
      h += QStringLiteral("<td width=\"%1%\" bgcolor=\"%2\"><b>%3 %</b> %4%5")
               .arg(glet.size_percent)
               .arg(free ? midlight : model_color(dominant))
               .arg(glet.size_percent)
               .arg(free ? QStringLiteral("free") : esc(std::string(engine::to_string(glet.mode))), models);
      if (!free)
        h += QStringLiteral("<br>duty cycle %1, occupancy %2 %, interference ×%3")
                 .arg(ms(glet.duty_cycle))
                 .arg(num(100 * glet.occupancy(), 0))
                 .arg(num(interference, 2));
      h += QStringLiteral("</td>");
    }
    h += QStringLiteral("</tr></table>");
  }
  return h;
}

// Every source-to-sink path of the plan's DAG, as module ids (the apps have a handful).
std::vector<std::vector<std::string>> paths_of(const engine::CostPlanRecord& plan) {
  const auto has_in = [&](const std::string& id) {
    return std::ranges::any_of(plan.edges, [&](const auto& e) { return e.second == id; });
  };
  std::vector<std::vector<std::string>> out, stack;
  for (const auto& m : plan.modules)
    if (!has_in(m.id)) stack.push_back({m.id});
  while (!stack.empty() && out.size() < 64) {
    auto path = std::move(stack.back());
    stack.pop_back();
    bool extended = false;
    for (const auto& [from, to] : plan.edges)
      if (from == path.back()) {
        auto longer = path;
        longer.push_back(to);
        stack.push_back(std::move(longer));
        extended = true;
      }
    if (!extended) out.push_back(std::move(path));
  }
  return out;
}

// Each path as a bar across the SLO: per module its worst-case latency, then the rest of its
// budget as slack (the "latency ribbon" of the cost papers' views).
QString budget_ribbons(const engine::CostPlanRecord& plan) {
  const double slo = plan.slo.to_us();
  if (slo <= 0) return {};
  std::map<std::string, std::pair<double, double>> lat;  // id → (wcl, budget)
  for (const auto& m : plan.modules)
    lat[m.id] = {m.wcl.to_us(), m.budget.to_us()};
  QString h = QStringLiteral("<h3>Budgets along each path</h3>");
  for (const auto& path : paths_of(plan)) {
    QString row;
    double used = 0;
    for (const auto& id : path) {
      const auto [wcl, budget] = lat[id];
      const int w_pct = static_cast<int>(std::lround(100 * wcl / slo));
      const int s_pct = static_cast<int>(std::lround(100 * std::max(0.0, budget - wcl) / slo));
      // Palette-driven colours, as every view (gui-anchors: Hotspot).
      const auto palette = QGuiApplication::palette();
      row += QStringLiteral("<td width=\"%1%\" bgcolor=\"%2\" title=\"WCL\">%3</td>")
                 .arg(w_pct)
                 .arg(widgets::color_for_name(QString::fromStdString(id), palette).name())
                 .arg(esc(id));
      if (s_pct > 0)
        row += QStringLiteral("<td width=\"%1%\" bgcolor=\"%2\"></td>")
                   .arg(s_pct)
                   .arg(palette.color(QPalette::Midlight).name());
      used += budget;
    }
    const int rest = static_cast<int>(std::lround(100 * std::max(0.0, slo - used) / slo));
    if (rest > 0) row += QStringLiteral("<td width=\"%1%\"></td>").arg(rest);
    QString names;
    for (const auto& id : path)
      names += (names.isEmpty() ? QString() : QStringLiteral(" → ")) + esc(id);
    h += QStringLiteral("<p>%1: %2 of the SLO</p><table width=\"100%\" cellspacing=0 border=1><tr>%3</tr></table>")
             .arg(names, ms(used), row);
  }
  return h;
}

QString cost_html(const engine::CostPlanRecord& plan) {
  if (!plan.feasible) return {};
  // Prices are per machine-hour (the catalog's price_per_hour, in USD for the built-in figures).
  QString h = QStringLiteral("<p>cost %1 $/h on %2 machines; end-to-end WCL %3 of %4.</p>")
                  .arg(num(plan.total_cost, 3))
                  .arg(plan.machines)
                  .arg(ms(plan.e2e_wcl))
                  .arg(ms(plan.slo));
  // A plan with burst headroom holds its SLO through the simulator check; at the workload's own
  // rates the papers' formula gives more (docs/formats.md "Cost plans").
  if (plan.e2e_wcl_at_rate.to_us() > plan.e2e_wcl.to_us() * (1 + 1e-9))
    h += QStringLiteral(
             "<p>That WCL is at the planned rates, with burst headroom. At the workload's rates the papers' "
             "formula gives %1: the SLO guarantee for bursty arrivals is the simulator check.</p>")
             .arg(ms(plan.e2e_wcl_at_rate));
  h += budget_ribbons(plan);
  for (const auto& m : plan.modules) {
    h += QStringLiteral("<h3>%1</h3><p>budget %2, WCL %3").arg(esc(m.id), ms(m.budget), ms(m.wcl));
    if (m.cpu) {
      h += QStringLiteral(" (CPU step)</p>");
      continue;
    }
    h += QStringLiteral(
             ", %1 req/s, dummy %2 req/s, cost %3 $/h</p><table border=1 cellpadding=4><tr><th>GPU</th>"
             "<th>batch</th><th>concurrency</th><th>machines</th><th>rate</th><th>WCL</th></tr>")
             .arg(num(m.rate_rps), num(m.dummy_rps), num(m.cost, 3));
    for (const auto& t : m.tiers)
      h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5 req/s</td><td>%6</td></tr>")
               .arg(esc(t.gpu))
               .arg(t.batch)
               .arg(t.concurrency)
               .arg(t.partial ? num(t.machines, 3) : QString::number(t.machines, 'f', 0))
               .arg(num(t.rate_rps))
               .arg(ms(t.wcl));
    h += QStringLiteral("</table>");
  }
  return h;
}

}  // namespace

QString plan_html(const nlohmann::json& plan, const Cluster& cluster) {
  engine::PlanSummary s;
  try {
    s = engine::summarize_plan(plan);
  } catch (const Error& e) {
    return QStringLiteral("<p>%1</p>").arg(QString::fromStdString(e.what()).toHtmlEscaped());
  }
  QString h = QStringLiteral("<h2>%1</h2><p>%2 plan, %3.</p>")
                  .arg(esc(s.system), QString::fromUtf8(engine::to_string(s.family).data()),
                       s.feasible ? QStringLiteral("feasible") : QStringLiteral("<b>not feasible</b>"));
  if (!s.note.empty()) h += QStringLiteral("<p><i>%1</i></p>").arg(esc(s.note));
  // The details from the plan's own type, read as strictly as the summary.
  try {
    return h + std::visit(
                   [&cluster](const auto& planned) {
                     using Planned = std::decay_t<decltype(planned)>;
                     if constexpr (std::is_same_v<Planned, engine::PipelinePlan>)
                       return pipeline_html(planned);
                     else if constexpr (std::is_same_v<Planned, engine::GletPlan>)
                       return glet_html(planned, cluster);
                     else
                       return cost_html(planned);
                   },
                   engine::read_plan(plan, "plan"));
  } catch (const Error& e) {
    return h + QStringLiteral("<p>The plan's details cannot be shown: %1</p>").arg(esc(e.what()));
  }
}

PlanView::PlanView(ProjectDocument* document, QWidget* parent) : QWidget(parent), doc_(document) {
  setObjectName(QStringLiteral("planView"));
  auto* box = new QHBoxLayout(this);
  for (auto* side : {&left_side_, &right_side_}) {
    side->pick = new QComboBox(this);
    side->pick->setObjectName(side == &left_side_ ? QStringLiteral("planPickLeft") : QStringLiteral("planPickRight"));
    side->diagram = new widgets::PlanDiagramView(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(side->diagram);
    scroll->setWidgetResizable(true);
    scroll->setBackgroundRole(QPalette::Base);
    side->text = new QTextBrowser(this);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(scroll);
    split->addWidget(side->text);
    // The diagram first: the page of figures below is for reading numbers off.
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({3000, 1000});
    auto* column = new QVBoxLayout;
    column->addWidget(side->pick);
    column->addWidget(split, 1);
    box->addLayout(column, 1);
    connect(side->pick, &QComboBox::currentIndexChanged, this,
            [this] { show_plans(left_side_.pick->currentIndex() - 1, right_side_.pick->currentIndex() - 1); });
    // A pool, glet or module picked on one side is picked on the other too, where it exists.
    connect(side->diagram, &widgets::PlanDiagramView::itemSelected, this, [this, side](const QString& id) {
      for (auto* s : {&left_side_, &right_side_})
        s->diagram->select(id.toStdString());
      const auto* p = doc_->project();
      const auto plan = side->pick->currentIndex() - 1;
      if (p && plan >= 0 && static_cast<std::size_t>(plan) < p->plans.size())
        Q_EMIT itemSelected(QString::fromStdString(p->plans[static_cast<std::size_t>(plan)].name), id);
    });
  }
  left_pick_ = left_side_.pick;
  right_pick_ = right_side_.pick;
  connect(doc_, &ProjectDocument::changed, this, &PlanView::refresh);
  // A project opened shows its first two plans side by side, not the last project's picks.
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    refresh();
    show_plans(0, 1);
  });
  refresh();
  show_plans(0, 1);
}

void PlanView::refresh() {
  const auto* p = doc_->project();
  const int left = left_pick_->currentIndex(), right = right_pick_->currentIndex();
  for (auto* pick : {left_pick_, right_pick_}) {
    const QSignalBlocker block(pick);
    pick->clear();
    pick->addItem(tr("(no plan)"));
    if (p)
      for (const auto& plan : p->plans)
        pick->addItem(QString::fromStdString(plan.name));
  }
  const int count = p ? static_cast<int>(p->plans.size()) : 0;
  show_plans(std::min(left, count) - 1, std::min(right, count) - 1);
}

void PlanView::show_plans(int left, int right) {
  const auto* p = doc_->project();
  const int count = p ? static_cast<int>(p->plans.size()) : 0;
  const auto fill = [&](Side& side, int index) {
    const QSignalBlocker block(side.pick);
    const bool ok = index >= 0 && index < count;
    side.pick->setCurrentIndex(ok ? index + 1 : 0);
    side.text->setHtml(ok ? plan_html(p->plans[static_cast<std::size_t>(index)].body, p->scenario.cluster)
                          : tr("<p>Pick a plan of this project.</p>"));
    engine::PlanDiagram diagram;
    if (ok) {
      try {
        diagram = engine::diagram_of(engine::read_plan(p->plans[static_cast<std::size_t>(index)].body, "plan"));
      } catch (const Error&) {
        // The page below says what is wrong with the plan; the diagram stays empty.
      }
    }
    side.diagram->set_diagram(std::move(diagram));
  };
  fill(left_side_, left);
  fill(right_side_, right);
  widgets::PlanDiagramView::share_scales(*left_side_.diagram, *right_side_.diagram);
}

QString PlanView::left_text() const {
  return left_side_.text->toPlainText();
}
QString PlanView::right_text() const {
  return right_side_.text->toPlainText();
}

}  // namespace servescope::ui
