#include "engine/serving/prepared_serving.h"

namespace servescope::engine {

void describe_unsplit(PreparedServing& prepared) {
  prepared.result.subclusters.push_back(
      SubclusterSummary{prepared.setup.gpus.size(), prepared.result.models, prepared.result.offered_rate_rps});
  prepared.result.partition_status = "not split";
}

}  // namespace servescope::engine
