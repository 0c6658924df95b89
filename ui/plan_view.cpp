#include "ui/plan_view.h"

#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "engine/systems/scenario_planner.h"
#include "model/core/error.h"
#include "ui/project_document.h"
#include "widgets/model_colors.h"

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

QString pipeline_html(const nlohmann::json& plan) {
  QString h;
  h += QStringLiteral("<p>%1 req/s in all.</p>").arg(num(plan.value("total_throughput_rps", 0.0)));
  for (const auto& m : plan.value("models", nlohmann::json::array())) {
    const auto model = m.value("name", "");
    h += QStringLiteral("<h3>%1</h3><p>planned %2 req/s, SLO %3</p>")
             .arg(esc(model), num(m.value("throughput_rps", 0.0)), ms(m.value("slo_us", 0.0)));
    for (const auto& p : plan.value("pipelines", nlohmann::json::array())) {
      if (p.value("model", "") != model) continue;
      // The pool with the least capacity limits the pipeline.
      double least = 1e300;
      for (const auto& d : p.value("partitions", nlohmann::json::array()))
        least = std::min(least, d.value("capacity_rps", 0.0));
      h += QStringLiteral(
               "<p>batch %1, latency %2, assigned %3 req/s:</p><table border=1 cellpadding=4><tr>"
               "<th>pool</th><th>GPU</th><th>vGPU</th><th>GPUs</th><th>blocks</th><th>capacity</th>"
               "<th>transfer</th></tr>")
               .arg(p.value("batch", 0))
               .arg(ms(p.value("latency_us", 0.0)))
               .arg(num(p.value("assigned_rps", 0.0)));
      int k = 0;
      for (const auto& d : p.value("partitions", nlohmann::json::array())) {
        const bool bottleneck = d.value("capacity_rps", 0.0) <= least;
        const auto blocks = d.value("blocks", nlohmann::json::array());
        h += QStringLiteral(
                 "<tr%1><td>%2%3</td><td>%4</td><td>1/%5</td><td>%6</td><td>%7–%8</td><td>%9 req/s</td>"
                 "<td>%10</td></tr>")
                 .arg(bottleneck ? QStringLiteral(" style=\"font-weight:bold\"") : QString())
                 .arg(++k)
                 .arg(bottleneck ? QStringLiteral(" (bottleneck)") : QString())
                 .arg(esc(d.value("gpu", "")))
                 .arg(d.value("vgpu_divisor", 1))
                 .arg(d.value("gpus", 0))
                 .arg(blocks.size() == 2 ? blocks[0].get<int>() : 0)
                 .arg(blocks.size() == 2 ? blocks[1].get<int>() : 0)
                 .arg(num(d.value("capacity_rps", 0.0)))
                 .arg(ms(d.value("transfer_us", 0.0)));
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
QString glet_html(const nlohmann::json& plan) {
  QString h = QStringLiteral("<p>%1 of %2 %3 GPUs used.</p>")
                  .arg(plan.value("gpus_used", 0))
                  .arg(plan.value("gpus", 0))
                  .arg(esc(plan.value("gpu", "")));
  h += QStringLiteral("<table cellpadding=3><tr>");
  for (const auto& m : plan.value("models", nlohmann::json::array()))
    h += QStringLiteral("<td bgcolor=\"%1\">&nbsp;&nbsp;</td><td>%2: %3 of %4 req/s placed</td>")
             .arg(model_color(m.value("name", "")), esc(m.value("name", "")), num(m.value("assigned_rps", 0.0)),
                  num(m.value("rate_rps", 0.0)));
  h += QStringLiteral("</tr></table>");
  const auto midlight = QGuiApplication::palette().color(QPalette::Midlight).name();
  int g = 0;
  for (const auto& gpu : plan.value("layout", nlohmann::json::array())) {
    h += QStringLiteral("<p><b>GPU %1</b></p><table width=\"100%\" cellspacing=0 cellpadding=4 border=1><tr>").arg(g++);
    for (const auto& glet : gpu.value("glets", nlohmann::json::array())) {
      const auto hosted = glet.value("models", nlohmann::json::array());
      std::string dominant;
      double most = -1;
      QString models;
      double interference = 1;
      for (const auto& m : hosted) {
        const auto name = m.value("model", "");
        if (m.value("rate_rps", 0.0) > most) {
          most = m.value("rate_rps", 0.0);
          dominant = name;
        }
        interference = std::max(interference, m.value("interference", 1.0));
        models += QStringLiteral("<br><font color=\"%1\">■</font> %2 batch %3, %4 req/s")
                      .arg(model_color(name), esc(name))
                      .arg(m.value("batch", 0))
                      .arg(num(m.value("rate_rps", 0.0)));
      }
      const bool free = hosted.empty();
      h += QStringLiteral("<td width=\"%1%\" bgcolor=\"%2\"><b>%3 %</b> %4%5")
               .arg(glet.value("size_percent", 0))
               .arg(free ? midlight : model_color(dominant))
               .arg(glet.value("size_percent", 0))
               .arg(free ? QStringLiteral("free") : esc(glet.value("mode", "")), models);
      if (!free)
        h += QStringLiteral("<br>duty cycle %1, occupancy %2 %, interference ×%3")
                 .arg(ms(glet.value("duty_cycle_us", 0.0)))
                 .arg(num(100 * glet.value("occupancy", 0.0), 0))
                 .arg(num(interference, 2));
      h += QStringLiteral("</td>");
    }
    h += QStringLiteral("</tr></table>");
  }
  return h;
}

// Every source-to-sink path of the plan's DAG, as module ids (the apps have a handful).
std::vector<std::vector<std::string>> paths_of(const nlohmann::json& plan) {
  std::vector<std::string> ids;
  for (const auto& m : plan.value("modules", nlohmann::json::array()))
    ids.push_back(m.value("id", ""));
  std::vector<std::pair<std::string, std::string>> edges;
  for (const auto& e : plan.value("edges", nlohmann::json::array()))
    if (e.size() == 2) edges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
  const auto has_in = [&](const std::string& id) {
    return std::ranges::any_of(edges, [&](const auto& e) { return e.second == id; });
  };
  std::vector<std::vector<std::string>> out, stack;
  for (const auto& id : ids)
    if (!has_in(id)) stack.push_back({id});
  while (!stack.empty() && out.size() < 64) {
    auto path = std::move(stack.back());
    stack.pop_back();
    bool extended = false;
    for (const auto& [from, to] : edges)
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
QString budget_ribbons(const nlohmann::json& plan) {
  const double slo = plan.value("slo_us", 0.0);
  if (slo <= 0) return {};
  std::map<std::string, std::pair<double, double>> lat;  // id → (wcl, budget)
  for (const auto& m : plan.value("modules", nlohmann::json::array()))
    lat[m.value("id", "")] = {m.value("wcl_us", 0.0), m.value("budget_us", 0.0)};
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

QString cost_html(const nlohmann::json& plan) {
  QString h = QStringLiteral("<p>cost %1 on %2 machines; end-to-end WCL %3 of %4.</p>")
                  .arg(num(plan.value("total_cost", 0.0), 3))
                  .arg(plan.value("machines", 0))
                  .arg(ms(plan.value("e2e_wcl_us", 0.0)))
                  .arg(ms(plan.value("slo_us", 0.0)));
  // A plan with burst headroom holds its SLO through the simulator check; at the workload's own
  // rates the papers' formula gives more (docs/formats.md "Cost plans").
  const double at_rate_us = plan.value("e2e_wcl_at_rate_us", 0.0);
  if (at_rate_us > plan.value("e2e_wcl_us", 0.0) * (1 + 1e-9))
    h += QStringLiteral(
             "<p>That WCL is at the planned rates, with burst headroom. At the workload's rates the papers' "
             "formula gives %1: the SLO guarantee for bursty arrivals is the simulator check.</p>")
             .arg(ms(at_rate_us));
  h += budget_ribbons(plan);
  for (const auto& m : plan.value("modules", nlohmann::json::array())) {
    h += QStringLiteral("<h3>%1</h3><p>budget %2, WCL %3")
             .arg(esc(m.value("id", "")), ms(m.value("budget_us", 0.0)), ms(m.value("wcl_us", 0.0)));
    if (m.value("kind", "") == "cpu") {
      h += QStringLiteral(" (CPU step)</p>");
      continue;
    }
    h += QStringLiteral(
             ", %1 req/s, dummy %2 req/s, cost %3</p><table border=1 cellpadding=4><tr><th>GPU</th>"
             "<th>batch</th><th>concurrency</th><th>machines</th><th>rate</th><th>WCL</th></tr>")
             .arg(num(m.value("rate_rps", 0.0)), num(m.value("dummy_rps", 0.0)), num(m.value("cost", 0.0), 3));
    for (const auto& t : m.value("tiers", nlohmann::json::array()))
      h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5 req/s</td><td>%6</td></tr>")
               .arg(esc(t.value("gpu", "")))
               .arg(t.value("batch", 0))
               .arg(t.value("concurrency", 1))
               .arg(t.value("partial", false) ? num(t.value("machines", 0.0), 3)
                                              : QString::number(t.value("machines", 0.0), 'f', 0))
               .arg(num(t.value("rate_rps", 0.0)))
               .arg(ms(t.value("wcl_us", 0.0)));
    h += QStringLiteral("</table>");
  }
  return h;
}

}  // namespace

QString plan_html(const nlohmann::json& plan) {
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
  // summarize_plan has read the plan strictly; the details below read it loosely, so a member of
  // an unexpected type in a hand-edited plan shows as a note, not as a library exception.
  try {
    if (s.family == engine::PlannerFamily::Pipeline) return h + pipeline_html(plan);
    if (s.family == engine::PlannerFamily::Glet) return h + glet_html(plan);
    return h + cost_html(plan);
  } catch (const nlohmann::json::exception& e) {
    return h + QStringLiteral("<p>The plan's details cannot be shown: %1</p>").arg(esc(e.what()));
  }
}

PlanView::PlanView(ProjectDocument* document, QWidget* parent) : QWidget(parent), doc_(document) {
  setObjectName(QStringLiteral("planView"));
  left_pick_ = new QComboBox(this);
  right_pick_ = new QComboBox(this);
  left_ = new QTextBrowser(this);
  right_ = new QTextBrowser(this);
  auto* left_box = new QVBoxLayout;
  left_box->addWidget(left_pick_);
  left_box->addWidget(left_, 1);
  auto* right_box = new QVBoxLayout;
  right_box->addWidget(right_pick_);
  right_box->addWidget(right_, 1);
  auto* box = new QHBoxLayout(this);
  box->addLayout(left_box, 1);
  box->addLayout(right_box, 1);
  for (auto* pick : {left_pick_, right_pick_})
    connect(pick, &QComboBox::currentIndexChanged, this,
            [this] { show_plans(left_pick_->currentIndex() - 1, right_pick_->currentIndex() - 1); });
  connect(doc_, &ProjectDocument::changed, this, &PlanView::refresh);
  connect(doc_, &ProjectDocument::projectReset, this, &PlanView::refresh);
  refresh();
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
  const auto fill = [&](QComboBox* pick, QTextBrowser* view, int index) {
    const QSignalBlocker block(pick);
    const bool ok = index >= 0 && index < count;
    pick->setCurrentIndex(ok ? index + 1 : 0);
    view->setHtml(ok ? plan_html(p->plans[static_cast<std::size_t>(index)].body)
                     : tr("<p>Pick a plan of this project.</p>"));
  };
  fill(left_pick_, left_, left);
  fill(right_pick_, right_, right);
}

QString PlanView::left_text() const {
  return left_->toPlainText();
}
QString PlanView::right_text() const {
  return right_->toPlainText();
}

}  // namespace servescope::ui
