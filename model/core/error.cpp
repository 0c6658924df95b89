#include "model/core/error.h"

namespace servescope {
namespace {

std::string compose(const std::string& file, const std::string& where, const std::string& reason) {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (!where.empty()) out += ": " + where;
  out += ": " + reason;
  return out;
}

}  // namespace

InputError::InputError(std::string file, std::string where, std::string reason)
    : Error(compose(file, where, reason)),
      file_(std::move(file)),
      where_(std::move(where)),
      reason_(std::move(reason)) {}

}  // namespace servescope
