// Hosts of their own for the live tests across hosts: network namespaces (iproute2's `ip netns`),
// each with one veth link to a bridge in a namespace of its own (the "switch"), 10.77.0.N/24 on
// host N. Processes run in a host with `ip netns exec`, which execs them, so a ChildProcess's pid
// is the daemon's own and signals reach it. A link is cut at the switch's port, as a pulled cable
// would be. Needs CAP_SYS_ADMIN and CAP_NET_ADMIN; where namespaces cannot be made, unavailable()
// says why and the tests skip with it.
#pragma once

#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/test_support.h"

namespace servescope::test {

class NetworkHosts {
 public:
  // Why namespaces with a bridge and veth links cannot be made here; nullopt when they can.
  static std::optional<std::string> unavailable() {
    if (::geteuid() != 0) return "not root: network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN";
    TempDir dir;
    const auto probe = prefix() + "probe";
    std::string why;
    if (!ip(dir, {"netns", "add", probe}, &why)) return "ip netns add failed: " + why;
    const bool ok = ip(dir, {"-n", probe, "link", "add", "name", "br0", "type", "bridge"}, &why) &&
                    ip(dir, {"-n", probe, "link", "add", "name", "va", "type", "veth", "peer", "name", "vb"}, &why);
    ip(dir, {"netns", "del", probe});
    if (!ok) return "cannot make a bridge and veth links in a namespace: " + why;
    return std::nullopt;
  }

  explicit NetworkHosts(int hosts) {
    const auto sw = name("sw");
    ok_ = ip(dir_, {"netns", "add", sw}, &error_) &&
          ip(dir_, {"-n", sw, "link", "add", "name", "br0", "type", "bridge"}, &error_) &&
          ip(dir_, {"-n", sw, "link", "set", "br0", "up"}, &error_);
    names_.push_back(sw);
    for (int h = 1; ok_ && h <= hosts; ++h) {
      const auto host = name("h" + std::to_string(h));
      const auto port = "p" + std::to_string(h);
      names_.push_back(host);
      ok_ = ip(dir_, {"netns", "add", host}, &error_) &&
            ip(dir_, {"-n", sw, "link", "add", "name", port, "type", "veth", "peer", "name", "eth0", "netns", host},
               &error_) &&
            ip(dir_, {"-n", sw, "link", "set", port, "master", "br0"}, &error_) &&
            ip(dir_, {"-n", sw, "link", "set", port, "up"}, &error_) &&
            ip(dir_, {"-n", host, "addr", "add", address(h) + "/24", "dev", "eth0"}, &error_) &&
            ip(dir_, {"-n", host, "link", "set", "eth0", "up"}, &error_) &&
            ip(dir_, {"-n", host, "link", "set", "lo", "up"}, &error_);
    }
  }
  ~NetworkHosts() {
    for (const auto& n : names_)
      ip(dir_, {"netns", "del", n});
  }
  NetworkHosts(const NetworkHosts&) = delete;
  NetworkHosts& operator=(const NetworkHosts&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  static std::string address(int host) { return "10.77.0." + std::to_string(host); }

  // `program args…` on `host`, its output in `out` and `err`.
  std::unique_ptr<ChildProcess> start(int host, const std::string& program, const std::vector<std::string>& args,
                                      const std::filesystem::path& out, const std::filesystem::path& err) const {
    std::vector<std::string> all{"ip", "netns", "exec", name("h" + std::to_string(host)), program};
    all.insert(all.end(), args.begin(), args.end());
    return std::make_unique<ChildProcess>("/usr/bin/env", all, out, err);
  }

  // Pulls (or plugs back) the cable of `host`: its switch port goes down (up).
  bool set_link(int host, bool up) {
    return ip(dir_, {"-n", name("sw"), "link", "set", "p" + std::to_string(host), up ? "up" : "down"}, &error_);
  }

 private:
  static std::string prefix() { return "ssc" + std::to_string(::getpid()) + "-"; }
  static std::string name(const std::string& what) { return prefix() + what; }

  // Runs `ip args…`; false (with its stderr in `why`) when it fails.
  static bool ip(const TempDir& dir, const std::vector<std::string>& args, std::string* why = nullptr) {
    std::vector<std::string> all{"ip"};
    all.insert(all.end(), args.begin(), args.end());
    ChildProcess p("/usr/bin/env", all, dir.path() / "ip.out", dir.path() / "ip.err");
    const auto status = p.wait_for(std::chrono::seconds(20));
    if (status == 0) return true;
    if (why) *why = p.err().empty() ? "exit status " + std::to_string(status.value_or(-1)) : p.err();
    return false;
  }

  TempDir dir_;
  std::vector<std::string> names_;
  bool ok_ = false;
  std::string error_;
};

}  // namespace servescope::test
