// A run's options that belong to one serving family: Symphony's policies, the pipeline plan and
// reservation rules, the gpu-let plan and its serving period, or a plug-in's own (the types live
// in each family's folder, engine/systems/*/). A spec holds each family's options at most once,
// plans included by shared_ptr, and the family that runs the spec reads its own back typed; a
// live deployment switching systems keeps what was given for each. It is an open sum of typed
// parts, not a std::variant, because families register at run time.
#pragma once

#include <any>
#include <vector>

namespace servescope::engine {

class FamilyOptions {
 public:
  // The options of type T, made with their defaults the first time.
  template <class T>
  T& edit() {
    if (auto* held = find<T>()) return *held;
    parts_.emplace_back(T{});
    return *std::any_cast<T>(&parts_.back());
  }
  // The options of type T, or T's defaults if none were set.
  template <class T>
  const T& get() const {
    static const T defaults{};
    const auto* held = const_cast<FamilyOptions*>(this)->find<T>();
    return held ? *held : defaults;
  }

 private:
  template <class T>
  T* find() {
    for (auto& part : parts_)
      if (auto* held = std::any_cast<T>(&part)) return held;
    return nullptr;
  }
  std::vector<std::any> parts_;
};

}  // namespace servescope::engine
