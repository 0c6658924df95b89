#include "engine/live/metrics_server.h"

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace servescope::engine::live {
namespace {

using Clock = std::chrono::steady_clock;

struct Client {
  TcpStream stream;
  Clock::time_point since;
  std::string request;
  std::string answer;  // empty until the request is whole
  std::size_t sent = 0;
  bool closed = false;
  bool answering() const { return !answer.empty(); }
};

std::string response(const std::string& status, const std::string& body, const std::string& headers = {}) {
  return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + headers + "Connection: close\r\n\r\n" + body;
}

// What the request line asks for: /metrics (a query aside; not /metricsfoo) by GET, /metrics by
// another method (405, which says what is allowed), or another path (404).
enum class Asked { Metrics, OtherMethod, OtherPath };
Asked what_is_asked(std::string_view request) {
  const auto method_end = request.find(' ');
  if (method_end == std::string_view::npos) return Asked::OtherPath;
  const auto target = request.substr(method_end + 1, request.find_first_of(" \r", method_end + 1) - method_end - 1);
  if (target.substr(0, target.find('?')) != "/metrics") return Asked::OtherPath;
  return request.substr(0, method_end) == "GET" ? Asked::Metrics : Asked::OtherMethod;
}

// Reads what is there; false when the client closed or broke the connection.
bool read_request(Client& c, std::size_t limit) {
  std::array<std::uint8_t, 4096> buffer;
  while (c.request.size() <= limit) {
    std::optional<std::size_t> n;
    try {
      n = c.stream.read_some(buffer);
    } catch (const LiveError&) {
      return false;
    }
    if (!n) return true;
    if (*n == 0) return false;
    c.request.append(reinterpret_cast<const char*>(buffer.data()), *n);
  }
  return true;
}

// Sends what the socket takes; true once all of it is gone, or the scraper is.
bool write_answer(Client& c) {
  try {
    while (c.sent < c.answer.size()) {
      const auto n = c.stream.write_some(
          std::span(reinterpret_cast<const std::uint8_t*>(c.answer.data()) + c.sent, c.answer.size() - c.sent));
      if (n == 0) return false;
      c.sent += n;
    }
  } catch (const LiveError&) {
    // It left: nothing more to send.
  }
  return true;
}

// Closing with unread bytes would reset the connection, and a reset can discard the answer
// before the scraper reads it: take whatever else it sent first.
void close_gently(Client& c) {
  std::array<std::uint8_t, 4096> buffer;
  try {
    for (int i = 0; i < 16 && c.stream.read_some(buffer).value_or(0) > 0; ++i) {
    }
  } catch (const LiveError&) {
    // Broken already: closing is all that is left.
  }
  c.stream.close();
  c.closed = true;
}

}  // namespace

MetricsServer::MetricsServer(std::uint16_t port, const std::string& address, MetricsServerLimits limits)
    : listener_(port, address), limits_(limits) {
  thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void MetricsServer::publish(std::string text) {
  std::lock_guard lock(mutex_);
  text_ = std::move(text);
}

void MetricsServer::serve() {
  std::vector<Client> clients;
  std::vector<pollfd> fds;
  Clock::time_point accept_paused_until;  // out of descriptors
  Clock::time_point full_until;           // full, and no connection has had its grace yet
  while (!stop_.load()) {
    const auto now = Clock::now();
    const bool accepting = now >= accept_paused_until && (clients.size() < limits_.connections || now >= full_until);
    fds.clear();
    fds.push_back({accepting ? listener_.native_handle() : -1, POLLIN, 0});
    auto wake = now + std::chrono::milliseconds(100);  // the stop flag is looked at this often
    for (const auto until : {accept_paused_until, full_until})
      if (until > now) wake = std::min(wake, until);
    for (const auto& c : clients) {
      fds.push_back({c.stream.native_handle(), static_cast<short>(c.answering() ? POLLOUT : POLLIN), 0});
      wake = std::min(wake, c.since + limits_.deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(0, wait) + 1)) < 0 && errno != EINTR)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // not expected; never spin
    for (std::size_t i = 0; i < clients.size(); ++i) {
      auto& c = clients[i];
      if (fds[i + 1].revents == 0) continue;
      if (!c.answering()) {
        if (!read_request(c, limits_.request_bytes)) {
          close_gently(c);
          continue;
        }
        if (c.request.find("\r\n\r\n") != std::string::npos) {
          switch (what_is_asked(c.request)) {
            case Asked::Metrics: {
              std::lock_guard lock(mutex_);
              c.answer = response("200 OK", text_);
              break;
            }
            case Asked::OtherMethod:
              c.answer = response("405 Method Not Allowed", "servescope scheduler: /metrics is read with GET\n",
                                  "Allow: GET\r\n");
              break;
            case Asked::OtherPath:
              c.answer = response("404 Not Found", "servescope scheduler: metrics are at /metrics\n");
              break;
          }
        } else if (c.request.size() > limits_.request_bytes) {
          c.answer = response("431 Request Header Fields Too Large", "the request is too large\n");
        }
      }
      if (c.answering() && write_answer(c)) close_gently(c);
    }
    const auto after = Clock::now();
    for (auto& c : clients)
      if (!c.closed && after - c.since > limits_.deadline) close_gently(c);
    std::erase_if(clients, [](const Client& c) { return c.closed; });
    if (!(fds[0].revents & POLLIN)) continue;
    for (;;) {
      // When full, the oldest that has not asked for anything yet makes room; failing that, the
      // oldest. Only one that has had its grace: otherwise newcomers wait in the listen queue.
      auto victim = clients.end();
      if (clients.size() >= limits_.connections) {
        const auto heard = [at = Clock::now(), this](const Client& c) { return at - c.since >= limits_.grace; };
        victim = std::ranges::find_if(clients, [&](const Client& c) { return heard(c) && c.request.empty(); });
        if (victim == clients.end()) victim = std::ranges::find_if(clients, heard);
        if (victim == clients.end()) {
          full_until = clients.front().since + limits_.grace;
          break;
        }
      }
      std::optional<TcpStream> stream;
      try {
        stream = listener_.accept(std::chrono::milliseconds(0));
      } catch (const LiveError&) {
        accept_paused_until = Clock::now() + std::chrono::milliseconds(100);  // out of descriptors
        break;
      }
      if (!stream) break;
      if (victim != clients.end()) {
        victim->stream.close();
        clients.erase(victim);
      }
      auto& c = clients.emplace_back();
      c.stream = std::move(*stream);
      c.since = Clock::now();
    }
  }
}

}  // namespace servescope::engine::live
