// The pure parts of the proxy's HTTP handling (unit-tested): where a request wants to go,
// and which headers are the proxy's business rather than the origin's. Beast parses the
// request head itself; this only interprets its request target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::net {

struct Target {
  std::string host;         // normalised (lower case, no brackets, no trailing dot)
  uint16_t port = 0;
  std::string origin_form;  // "/path?query" for plain HTTP; empty for CONNECT
};

// CONNECT's authority form: "host:port" or "[v6]:port"; the port is required.
Result<Target> ParseConnectTarget(std::string_view target);
// A proxy request's absolute form: "http://host[:port][/path][?query]". https:// (and any
// other scheme) is refused: TLS goes through CONNECT.
Result<Target> ParseAbsoluteTarget(std::string_view target);
// Headers that describe the client-to-proxy hop and must not reach the origin: Connection,
// Keep-Alive, Proxy-*, TE, Trailer, Upgrade. Transfer-Encoding stays: the body is relayed
// as the client framed it.
bool IsHopByHop(std::string_view name);
// "host:port" for a Host header or a CONNECT line, bracketing IPv6 literals.
std::string Authority(std::string_view host, uint16_t port);

}  // namespace sandshim::net
