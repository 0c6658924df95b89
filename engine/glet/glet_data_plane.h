// gpu-let's runtime (seed 003 §4.6, §5.2; digest §5.2–§5.3): one queue per (glet, model); a
// model's requests are spread over its glets by weighted round robin on credits, in proportion to
// the rate each glet is planned to carry; each glet gathers up to its batch for at most one duty
// cycle (sooner when the oldest request would otherwise be late) and keeps at most one batch per
// model in flight; requests that can no longer make their deadline are dropped (eager) or those
// already past it (lazy). A burst that queues more than the planned batch may go out as one larger
// batch (catch_up, on by default).
#pragma once

#include <deque>
#include <vector>

#include "engine/dataplane/data_plane.h"
#include "engine/glet/glet_deployment.h"

namespace servescope::engine {

enum class GletDropRule { Eager, Lazy };

struct GletDataPlaneOptions {
  GletDropRule drop = GletDropRule::Eager;
  double drop_ratio = 1.0;  // of the SLO: the prototype's DropRatio
  // Ours, not the paper's: when more requests wait than the planned batch (a Poisson burst), send
  // the largest batch the oldest can still finish in time with, rather than the planned size and
  // a queue behind it. Needs the deployment's latency by batch.
  bool catch_up = true;
};

class GletDataPlane final : public DataPlane {
 public:
  // `deployment` must outlive the data plane; `slo` per model. Batch ids start at
  // `first_batch_id`, so planes that succeed each other never reuse one.
  GletDataPlane(const GletDeployment& deployment, std::vector<Duration> slo, GletDataPlaneOptions options = {},
                BatchId first_batch_id = 1);

  // Hands over every request still queued (the next schedule takes them); batches in flight
  // still report back here.
  std::vector<Request> take_queued();

  std::string name() const override { return "glet"; }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;

 private:
  struct Lane {  // one model on one glet
    std::uint32_t slot = 0;
    std::size_t hosted = 0;
    std::deque<std::pair<Request, Time>> queue;  // with the time it joined this lane
    bool in_flight = false;
    TimerId timer = 0;
    double credit = 0;
  };

  void serve(std::size_t lane);
  Duration budget(const Request& r) const;  // how late it may still start, per the drop rule

  const GletDeployment& d_;
  std::vector<Duration> slo_;
  GletDataPlaneOptions options_;
  DataPlaneContext* ctx_ = nullptr;
  std::vector<Lane> lanes_;
  std::vector<std::vector<std::size_t>> model_lanes_;  // per model
  std::vector<std::vector<std::size_t>> slot_lanes_;   // per slot
  BatchId next_batch_ = 1;
};

}  // namespace servescope::engine
