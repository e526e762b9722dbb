// An upstream proxy the egress proxy chains to (--proxy URL), parsed (pure; unit-tested).
#pragma once

#include <cstdint>
#include <string>

#include "shim/core/result.h"

namespace sandshim::net {

struct UpstreamProxy {
  std::string host;
  uint16_t port = 0;
  std::string authorization;  // "Basic ..." from user:password in the URL, or empty
  bool empty() const { return host.empty(); }
};
// "http://[user:password@]host[:port][/]" (port defaults to 3128 then 80 per scheme: 80).
Result<UpstreamProxy> ParseProxyUrl(const std::string& url);

}  // namespace sandshim::net
