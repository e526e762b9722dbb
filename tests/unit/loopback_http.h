// Loopback HTTP for the proxy's unit test: a listening socket, blocking send/receive with
// timeouts, a local origin that records every byte it receives, and a parser for one
// HTTP/1.1 message, so tests assert on the bytes on the wire by field.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shim/core/unique_fd.h"

namespace sandshim::testing {

using namespace std::chrono_literals;


// A listening TCP socket on ADDR:port (port 0: any free one).
inline UniqueFd Listen(const char* addr, uint16_t port, uint16_t* bound) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  ::inet_pton(AF_INET, addr, &sa.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd.get(), 16) != 0) return {};
  socklen_t len = sizeof sa;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  *bound = ntohs(sa.sin_port);
  return fd;
}

inline void SetTimeouts(int fd) {
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

inline bool SendAll(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    s.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads until `stop` appears in what was read (empty: until EOF), an error or the timeout.
inline std::string ReadUntil(int fd, std::string_view stop = {}) {
  std::string got;
  char buf[4096];
  while (stop.empty() || got.find(stop) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// A local origin: answers every request with "hello" and records, per connection, every
// byte it received until the other side closed.
class Origin {
 public:
  Origin(const char* addr, uint16_t port) : listener_(Listen(addr, port, &port_)) {
    if (listener_.valid()) thread_ = std::thread([this] { Loop(); });
  }
  ~Origin() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  bool ok() const { return listener_.valid(); }
  uint16_t port() const { return port_; }
  size_t connections() const {
    std::lock_guard lk(mu_);
    return received_.size();
  }
  std::string received(size_t i) const {
    std::lock_guard lk(mu_);
    return i < received_.size() ? received_[i] : "";
  }
  // Waits for the n-th connection to end (the recording is complete then).
  bool WaitConnections(size_t n) const {
    for (int i = 0; i < 300 && connections() < n; ++i) std::this_thread::sleep_for(10ms);
    return connections() >= n;
  }

 private:
  void Loop() {
    while (!stop_) {
      pollfd p{listener_.get(), POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      UniqueFd c(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!c.valid()) continue;
      SetTimeouts(c.get());
      std::string got = ReadUntil(c.get(), "\r\n\r\n");
      SendAll(c.get(), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
      ::shutdown(c.get(), SHUT_WR);
      got += ReadUntil(c.get());  // anything more the proxy forwards, until it closes
      std::lock_guard lk(mu_);
      received_.push_back(std::move(got));
    }
  }

  uint16_t port_ = 0;
  UniqueFd listener_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<std::string> received_;
  std::thread thread_;
};

struct HttpMessage {
  std::string start_line;
  std::map<std::string, std::vector<std::string>> headers;  // lower-case names
  std::string body;
  int status() const { return start_line.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(start_line.substr(9, 3)) : 0; }
  std::string header(const std::string& lower) const {
    auto it = headers.find(lower);
    return it == headers.end() || it->second.empty() ? "" : it->second.front();
  }
  bool has(const std::string& lower) const { return headers.contains(lower); }
};

// One HTTP/1.1 message (request or response) from the front of raw; what follows the head
// is the body.
inline HttpMessage Parse(const std::string& raw) {
  HttpMessage m;
  auto end = raw.find("\r\n\r\n");
  std::string head = raw.substr(0, end);
  m.body = end == std::string::npos ? "" : raw.substr(end + 4);
  size_t pos = 0;
  for (bool first = true; pos <= head.size(); first = false) {
    auto eol = head.find("\r\n", pos);
    if (eol == std::string::npos) eol = head.size();
    std::string line = head.substr(pos, eol - pos);
    pos = eol + 2;
    if (first) {
      m.start_line = line;
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    m.headers[name].push_back(value);
  }
  return m;
}

inline size_t CountRequestLines(const std::string& raw) {
  size_t n = 0;
  for (size_t at = raw.find(" HTTP/1.1\r\n"); at != std::string::npos; at = raw.find(" HTTP/1.1\r\n", at + 1)) ++n;
  return n;
}

}  // namespace sandshim::testing
