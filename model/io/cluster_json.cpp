#include "model/io/model_json.h"

namespace servescope {

Cluster cluster_from_json(const JsonCursor& c, bool document) {
  if (document) {
    expect_document_header(c, "cluster");
    c.expect_object({"schema_version", "kind", "name", "description", "nodes"});
  } else {
    c.expect_object({"name", "description", "nodes"});
  }
  Cluster cluster;
  cluster.name = c.string_or("name", "");
  cluster.description = c.string_or("description", "");
  const auto nodes = c.at("nodes");
  if (nodes.size() > 100'000) nodes.fail("more than 100000 node entries");
  long long total_gpus = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto n = nodes[i];
    n.expect_object({"name", "gpu", "gpu_count", "count", "nic_up_gbps", "nic_down_gbps", "position"});
    Node node;
    node.name = n.at("name").as_string();
    node.gpu = n.at("gpu").as_string();
    node.gpu_count = static_cast<int>(n.at("gpu_count").as_int(1, kMaxGpusPerNode));
    node.count = static_cast<int>(n.int_or("count", 1, 1, kMaxNodeCount));
    node.nic_up_gbps = n.at("nic_up_gbps").as_double(0.001, kMaxNicGbps);
    node.nic_down_gbps = n.at("nic_down_gbps").as_double(0.001, kMaxNicGbps);
    if (const auto p = n.find("position")) {
      if (p->size() != 2) p->fail("must be [x, y]");
      node.position = CanvasPoint{(*p)[0].as_double(-kMaxCanvasCoordinate, kMaxCanvasCoordinate),
                                  (*p)[1].as_double(-kMaxCanvasCoordinate, kMaxCanvasCoordinate)};
    }
    total_gpus += static_cast<long long>(node.gpu_count) * node.count;
    if (total_gpus > 1'000'000) n.fail("the cluster would hold more than 1000000 GPUs");
    cluster.nodes.push_back(std::move(node));
  }
  return cluster;
}

nlohmann::json to_json(const Cluster& c, bool document) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : c.nodes) {
    nlohmann::json j = {{"name", n.name}, {"gpu", n.gpu}, {"gpu_count", n.gpu_count}};
    if (n.count != 1) j["count"] = n.count;
    j["nic_up_gbps"] = n.nic_up_gbps;
    j["nic_down_gbps"] = n.nic_down_gbps;
    if (n.position) j["position"] = {n.position->x, n.position->y};
    nodes.push_back(std::move(j));
  }
  nlohmann::json out;
  if (document) {
    out["schema_version"] = kSchemaVersion;
    out["kind"] = "cluster";
  }
  out["name"] = c.name;
  if (!c.description.empty()) out["description"] = c.description;
  out["nodes"] = std::move(nodes);
  return out;
}

}  // namespace servescope
