#include "model/profile/model_profile.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {
namespace {

std::string describe(const ModelProfile& p, const LatencyQuery& q) {
  return "model '" + p.name + "' on " + std::string(q.gpu) + " at share " + q.share.to_string();
}

template <typename T>
const T* find_config(const std::vector<T>& tables, std::string_view gpu, GpuShare share) {
  for (const auto& t : tables)
    if (t.gpu == gpu && t.share == share) return &t;
  return nullptr;
}

template <typename T>
void add_configs(const std::vector<T>& tables, std::vector<std::pair<std::string, GpuShare>>& out) {
  for (const auto& t : tables)
    out.emplace_back(t.gpu, t.share);
}

[[noreturn]] void not_profiled(const ModelProfile& p, const LatencyQuery& q) {
  std::string have;
  for (const auto& [gpu, share] : p.configurations())
    have += (have.empty() ? "" : ", ") + gpu + "@" + share.to_string();
  throw QueryError(describe(p, q) + ": not profiled (profiled: " + (have.empty() ? std::string("nothing") : have) +
                   ")");
}

[[noreturn]] void batch_out_of_range(const ModelProfile& p, const LatencyQuery& q, int lo, int hi) {
  throw QueryError(describe(p, q) + ": batch " + std::to_string(q.batch) + " is outside the profiled range " +
                   std::to_string(lo) + ".." + std::to_string(hi));
}

}  // namespace

std::string_view to_string(ProfileForm form) {
  switch (form) {
    case ProfileForm::Blocks:
      return "blocks";
    case ProfileForm::Linear:
      return "linear";
    case ProfileForm::Table:
      return "table";
  }
  return "?";
}

std::optional<ProfileForm> parse_profile_form(std::string_view text) {
  for (auto f : {ProfileForm::Blocks, ProfileForm::Linear, ProfileForm::Table})
    if (to_string(f) == text) return f;
  return std::nullopt;
}

Duration ModelProfile::latency(const LatencyQuery& q) const {
  const BlockRange range = q.blocks.value_or(BlockRange{0, blocks()});
  if (range.begin < 0 || range.end > blocks() || range.begin >= range.end)
    throw QueryError(describe(*this, q) + ": block range [" + std::to_string(range.begin) + ", " +
                     std::to_string(range.end) + ") is not within the model's " + std::to_string(blocks()) +
                     " block(s)");
  switch (form) {
    case ProfileForm::Blocks: {
      const auto* t = find_config(block_tables, q.gpu, q.share);
      if (!t) not_profiled(*this, q);
      const auto& first = t->blocks.front();
      if (q.batch < first.min_batch() || q.batch > first.max_batch())
        batch_out_of_range(*this, q, first.min_batch(), first.max_batch());
      Duration sum;
      for (int b = range.begin; b < range.end; ++b)
        sum += *t->blocks[static_cast<std::size_t>(b)].at(q.batch);
      return sum;
    }
    case ProfileForm::Linear: {
      const auto* f = find_config(linear_fits, q.gpu, q.share);
      if (!f) not_profiled(*this, q);
      const int hi = f->max_batch > 0 ? f->max_batch : kMaxBatchSize;
      if (q.batch < 1 || q.batch > hi) batch_out_of_range(*this, q, 1, hi);
      return f->alpha * q.batch + f->beta;
    }
    case ProfileForm::Table: {
      const auto* t = find_config(batch_tables, q.gpu, q.share);
      if (!t) not_profiled(*this, q);
      if (auto l = t->curve.at(q.batch)) return *l;
      batch_out_of_range(*this, q, t->curve.min_batch(), t->curve.max_batch());
    }
  }
  throw QueryError(describe(*this, q) + ": unknown profile form");
}

std::optional<std::vector<Duration>> ModelProfile::latency_levels(const LatencyQuery& q) const {
  (void)latency(q);  // the same errors for a query the profile cannot answer
  if (form != ProfileForm::Blocks) return std::nullopt;
  const auto* t = find_config(block_tables, q.gpu, q.share);
  if (!t || t->distributions.size() != t->blocks.size()) return std::nullopt;
  const auto& batches = t->blocks.front().batches();
  const auto hi = static_cast<std::size_t>(std::ranges::lower_bound(batches, q.batch) - batches.begin());
  const auto lo = batches[hi] == q.batch ? hi : hi - 1;
  const double weight =
      hi == lo ? 0.0 : static_cast<double>(q.batch - batches[lo]) / static_cast<double>(batches[hi] - batches[lo]);
  const BlockRange range = q.blocks.value_or(BlockRange{0, blocks()});
  std::vector<double> sum(kDistributionLevels.size(), 0.0);
  for (int k = range.begin; k < range.end; ++k) {
    const auto& row = t->distributions[static_cast<std::size_t>(k)];
    if (row.size() != batches.size()) return std::nullopt;
    for (std::size_t level = 0; level < sum.size(); ++level) {
      const auto a = static_cast<double>(row[lo].quantiles.at(level).count_ns());
      const auto b = static_cast<double>(row[hi].quantiles.at(level).count_ns());
      sum[level] += a + weight * (b - a);
    }
  }
  std::vector<Duration> out;
  for (const double v : sum)
    out.push_back(Duration::nanoseconds(std::llround(v)));
  return out;
}

std::vector<std::pair<std::string, GpuShare>> ModelProfile::configurations() const {
  std::vector<std::pair<std::string, GpuShare>> out;
  add_configs(block_tables, out);
  add_configs(linear_fits, out);
  add_configs(batch_tables, out);
  return out;
}

int ModelProfile::min_batch(std::string_view gpu, GpuShare share) const {
  if (const auto* t = find_config(block_tables, gpu, share))
    return t->blocks.empty() ? 0 : t->blocks.front().min_batch();
  if (find_config(linear_fits, gpu, share)) return 1;
  if (const auto* t = find_config(batch_tables, gpu, share)) return t->curve.min_batch();
  return 0;
}

int ModelProfile::max_batch(std::string_view gpu, GpuShare share) const {
  if (const auto* t = find_config(block_tables, gpu, share))
    return t->blocks.empty() ? 0 : t->blocks.front().max_batch();
  if (const auto* f = find_config(linear_fits, gpu, share)) return f->max_batch > 0 ? f->max_batch : kMaxBatchSize;
  if (const auto* t = find_config(batch_tables, gpu, share)) return t->curve.max_batch();
  return 0;
}

std::vector<int> ModelProfile::profiled_batches(std::string_view gpu, GpuShare share) const {
  if (const auto* t = find_config(block_tables, gpu, share))
    return t->blocks.empty() ? std::vector<int>{} : t->blocks.front().batches();
  if (const auto* t = find_config(batch_tables, gpu, share)) return t->curve.batches();
  return {};
}

std::int64_t ModelProfile::cut_bytes(int j) const {
  if (j <= 0 || j >= blocks() || static_cast<std::size_t>(j - 1) >= boundary_bytes.size())
    throw QueryError("model '" + name + "': no block boundary " + std::to_string(j) + " (it has " +
                     std::to_string(blocks()) + " blocks)");
  return boundary_bytes[static_cast<std::size_t>(j - 1)];
}

const ModelProfile* ProfileSet::find(std::string_view model) const {
  const auto it = std::ranges::find(models, model, &ModelProfile::name);
  return it == models.end() ? nullptr : &*it;
}

const ModelProfile& ProfileSet::get(std::string_view model) const {
  if (const auto* p = find(model)) return *p;
  throw QueryError("no profile for model " + quote_for_message(model));
}

Duration ProfileSet::latency(std::string_view model, const LatencyQuery& q) const {
  return get(model).latency(q);
}

void ProfileSet::merge(ProfileSet other, const std::string& origin) {
  for (auto& m : other.models) {
    if (find(m.name))
      throw QueryError("model '" + m.name + "' from " + origin + " is already defined" +
                       (find(m.name)->origin.empty() ? std::string() : " by " + find(m.name)->origin));
    m.origin = origin;
    models.push_back(std::move(m));
  }
  for (auto& u : other.utilisation) {
    u.origin = origin;
    utilisation.push_back(std::move(u));
  }
  for (auto& i : other.interference) {
    i.origin = origin;
    interference.push_back(std::move(i));
  }
  for (auto& c : other.contention) {
    c.origin = origin;
    contention.push_back(std::move(c));
  }
}

ContentionModel ProfileSet::contention_on(std::string_view gpu) const {
  ContentionModel joined;
  joined.gpu = gpu;
  for (const auto& c : contention)
    if (c.gpu == gpu) joined.merge(c);
  return joined;
}

Duration transfer_time(std::int64_t bytes, double gbps) {
  // Gbps is bits per nanosecond.
  return Duration::nanoseconds(static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * 8.0 / gbps)));
}

}  // namespace servescope
