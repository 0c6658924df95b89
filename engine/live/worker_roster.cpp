#include "engine/live/worker_roster.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine::live {

WorkerRoster::WorkerRoster(std::vector<std::string> server_names)
    : names_(std::move(server_names)),
      worker_(names_.size(), 0),
      used_(names_.size(), false),
      doubted_(names_.size(), false) {}

void WorkerRoster::set_plan(const std::vector<std::uint32_t>& slot_server) {
  for (const auto s : slot_server)
    if (s >= names_.size())
      throw QueryError("a slot sits on server " + std::to_string(s) + "; the cluster has " +
                       std::to_string(names_.size()));
  slot_server_ = slot_server;
  used_.assign(names_.size(), false);
  for (const auto s : slot_server_)
    used_[s] = true;
}

std::vector<std::uint32_t> WorkerRoster::slots_of(std::uint32_t server) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t g = 0; g < slot_server_.size(); ++g)
    if (slot_server_[g] == server) out.push_back(g);
  return out;
}

std::optional<std::uint32_t> WorkerRoster::find(const std::string& name) const {
  const auto it = std::ranges::find(names_, name);
  if (it == names_.end()) return std::nullopt;
  return static_cast<std::uint32_t>(it - names_.begin());
}

void WorkerRoster::join(std::uint32_t server, std::uint64_t peer) {
  worker_[server] = peer;
  doubted_[server] = false;
}

void WorkerRoster::leave(std::uint32_t server) {
  worker_[server] = 0;
  doubted_[server] = false;
}

bool WorkerRoster::doubt(std::uint32_t server) {
  if (doubted_[server] || worker_[server] == 0) return false;
  doubted_[server] = true;
  return true;
}

bool WorkerRoster::clear_doubt(std::uint32_t server) {
  if (!doubted_[server]) return false;
  doubted_[server] = false;
  return true;
}

bool WorkerRoster::slot_usable(std::uint32_t slot) const {
  const auto s = slot_server_.at(slot);
  return worker_[s] != 0 && !doubted_[s];
}

std::size_t WorkerRoster::connected() const {
  return static_cast<std::size_t>(std::ranges::count_if(worker_, [](std::uint64_t id) { return id != 0; }));
}

std::vector<std::string> WorkerRoster::missing() const {
  std::vector<std::string> out;
  for (std::size_t s = 0; s < names_.size(); ++s)
    if (used_[s] && worker_[s] == 0) out.push_back(names_[s]);
  return out;
}

bool WorkerRoster::any_missing() const {
  for (std::size_t s = 0; s < names_.size(); ++s)
    if (used_[s] && worker_[s] == 0) return true;
  return false;
}

bool WorkerRoster::any_slot_usable() const {
  for (std::uint32_t g = 0; g < slots(); ++g)
    if (slot_usable(g)) return true;
  return false;
}

nlohmann::json WorkerRoster::status() const {
  nlohmann::json workers = nlohmann::json::array();
  for (std::size_t s = 0; s < names_.size(); ++s)
    workers.push_back({{"server", names_[s]}, {"connected", worker_[s] != 0}, {"used", static_cast<bool>(used_[s])}});
  return workers;
}

}  // namespace servescope::engine::live
