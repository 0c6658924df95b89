#include "ui/item_details.h"

#include <QCoreApplication>

#include "ui/project_tree_model.h"

namespace servescope::ui {
namespace {

QString esc_html(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}
QString tr(const char* text) {
  return QCoreApplication::translate("ItemDetails", text);
}
QString ms_text(Duration d) {
  return QString::number(d.to_ms(), 'g', 5) + QStringLiteral(" ms");
}

QString row(const QString& key, const QString& value) {
  return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key, value);
}

QString table(const QString& rows) {
  return QStringLiteral("<table cellspacing=4>%1</table>").arg(rows);
}

QString node_html(const Node& n) {
  return QStringLiteral("<h3>%1</h3>").arg(esc_html(n.name)) +
         table(row(tr("GPU"), esc_html(n.gpu)) + row(tr("GPUs per server"), QString::number(n.gpu_count)) +
               row(tr("Servers"), QString::number(n.count)) +
               row(tr("NIC uplink"), QStringLiteral("%1 Gbps").arg(n.nic_up_gbps)) +
               row(tr("NIC downlink"), QStringLiteral("%1 Gbps").arg(n.nic_down_gbps)));
}

// A datasheet figure, or "—" where the type's entry leaves it out (0: unknown).
QString figure(double value, const QString& unit) {
  return value > 0 ? QStringLiteral("%1 %2").arg(value).arg(unit) : QStringLiteral("—");
}

QString gpu_html(const GpuSpec& g) {
  return QStringLiteral("<h3>%1</h3>").arg(esc_html(g.name)) +
         table(row(tr("Id"), esc_html(g.id)) +
               row(tr("Architecture"), g.architecture.empty() ? QStringLiteral("—") : esc_html(g.architecture)) +
               row(tr("SMs"), g.sm_count > 0 ? QString::number(g.sm_count) : QStringLiteral("—")) +
               row(tr("FP32"), figure(g.fp32_tflops, tr("TFLOP/s"))) +
               row(tr("FP16"), figure(g.fp16_tflops, tr("TFLOP/s"))) +
               row(tr("Memory"), figure(g.memory_gib, tr("GiB"))) +
               row(tr("Memory bandwidth"), figure(g.memory_bandwidth_gbs, tr("GB/s"))) +
               row(tr("MPS shares"), g.mps ? tr("yes") : tr("no")) +
               row(tr("Price"), figure(g.price_per_hour, tr("per hour"))));
}

QString profile_html(const ModelProfile& m) {
  QString rows = row(tr("Form"), QString::fromUtf8(to_string(m.form)));
  if (m.default_slo) rows += row(tr("Default SLO"), ms_text(*m.default_slo));
  if (m.form == ProfileForm::Blocks) rows += row(tr("Blocks"), QString::number(m.block_count));
  if (!m.origin.empty()) rows += row(tr("From"), esc_html(m.origin));
  if (!m.description.empty()) rows += row(tr("Notes"), esc_html(m.description));
  QString configs =
      QStringLiteral("<tr><th>GPU</th><th>share</th><th>smallest batch</th><th>max batch</th><th>at max</th></tr>");
  for (const auto& [gpu, share] : m.configurations()) {
    const int minb = m.min_batch(gpu, share), maxb = m.max_batch(gpu, share);
    const auto lmin = m.latency({gpu, share, minb, std::nullopt});
    const auto lmax = m.latency({gpu, share, maxb, std::nullopt});
    configs += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3 (b=%4)</td><td>%5</td><td>%6</td></tr>")
                   .arg(esc_html(gpu), esc_html(share.to_string()), ms_text(lmin), QString::number(minb),
                        QString::number(maxb), ms_text(lmax));
  }
  return QStringLiteral("<h3>%1</h3>").arg(esc_html(m.name)) + table(rows) +
         QStringLiteral("<h4>%1</h4>").arg(tr("Latency")) +
         QStringLiteral("<table border=1 cellspacing=0 cellpadding=3>%1</table>").arg(configs);
}

QString app_html(const Application& a) {
  QString mods;
  for (const auto& m : a.modules)
    mods += QStringLiteral("<li>%1: %2</li>")
                .arg(esc_html(m.id),
                     m.kind == ModuleKind::Dnn ? esc_html(m.model) : tr("CPU step, %1").arg(ms_text(m.cpu_latency)));
  QString edges;
  for (const auto& e : a.edges)
    edges += QStringLiteral("<li>%1 → %2</li>").arg(esc_html(e.from), esc_html(e.to));
  return QStringLiteral("<h3>%1</h3>").arg(esc_html(a.name)) + table(row(tr("End-to-end SLO"), ms_text(a.slo))) +
         QStringLiteral("<h4>%1</h4><ul>%2</ul><h4>%3</h4><ul>%4</ul>").arg(tr("Modules"), mods, tr("Edges"), edges);
}

QString workload_html(const Scenario& s, const Workload& w) {
  const auto shares = w.shares();
  QString targets;
  for (std::size_t i = 0; i < w.targets.size(); ++i) {
    const auto slo = s.slo_of(w.targets[i]);
    targets += QStringLiteral("<tr><td>%1</td><td>%2 req/s</td><td>%3</td></tr>")
                   .arg(esc_html(w.targets[i].name))
                   .arg(w.rate_rps * shares[i], 0, 'f', 1)
                   .arg(slo ? ms_text(*slo) : tr("none"));
  }
  return QStringLiteral("<h3>%1</h3>").arg(esc_html(w.name)) +
         table(row(tr("Rate"), QStringLiteral("%1 req/s").arg(w.rate_rps)) +
               row(tr("Arrivals"), esc_html(describe(w.arrivals)))) +
         QStringLiteral(
             "<table border=1 cellspacing=0 cellpadding=3><tr><th>%1</th><th>%2</th><th>%3</th></tr>%4</table>")
             .arg(tr("target"), tr("rate"), tr("SLO"), targets);
}

QString artifact_html(const SavedArtifact& a) {
  return QStringLiteral("<h3>%1</h3>").arg(esc_html(a.name)) +
         table(row(tr("System"), esc_html(a.system)) + row(tr("Created"), esc_html(a.created_utc))) +
         QStringLiteral("<pre>%1</pre>").arg(QString::fromStdString(a.body.dump(2)).toHtmlEscaped());
}

}  // namespace

QString project_overview_html(const Project& p) {
  const auto& s = p.scenario;
  QString gpus;
  for (const auto& [type, n] : s.cluster.gpus_by_type())
    gpus += QStringLiteral("%1× %2 ").arg(n).arg(esc_html(type));
  return QStringLiteral("<h2>%1</h2><p>%2</p>").arg(esc_html(p.name), esc_html(s.description)) +
         table(row(tr("Scenario"), esc_html(s.name)) +
               row(tr("Cluster"),
                   tr("%1 servers, %2 GPUs: %3").arg(s.cluster.total_servers()).arg(s.cluster.total_gpus()).arg(gpus)) +
               row(tr("Models"), QString::number(s.profiles.models.size())) +
               row(tr("Applications"), QString::number(s.applications.size())) +
               row(tr("Workloads"), QString::number(s.workloads.size())) +
               row(tr("Plans / runs"), QStringLiteral("%1 / %2").arg(p.plans.size()).arg(p.runs.size())));
}

QString item_details_html(const Project& p, int section, int index) {
  if (index < 0) return project_overview_html(p);
  const auto i = static_cast<std::size_t>(index);
  const auto& s = p.scenario;
  switch (static_cast<ProjectTreeModel::Section>(section)) {
    case ProjectTreeModel::Section::Cluster:
      return i < s.cluster.nodes.size() ? node_html(s.cluster.nodes[i]) : QString();
    case ProjectTreeModel::Section::GpuTypes: {
      const auto used = s.gpu_types_in_use();
      return i < used.size() ? gpu_html(*s.catalog().find(used[i])) : QString();
    }
    case ProjectTreeModel::Section::Models:
      return i < s.profiles.models.size() ? profile_html(s.profiles.models[i]) : QString();
    case ProjectTreeModel::Section::Applications:
      return i < s.applications.size() ? app_html(s.applications[i]) : QString();
    case ProjectTreeModel::Section::Workloads:
      return i < s.workloads.size() ? workload_html(s, s.workloads[i]) : QString();
    case ProjectTreeModel::Section::Plans:
      return i < p.plans.size() ? artifact_html(p.plans[i]) : QString();
    case ProjectTreeModel::Section::Runs:
      return i < p.runs.size() ? artifact_html(p.runs[i]) : QString();
  }
  return {};
}

}  // namespace servescope::ui
