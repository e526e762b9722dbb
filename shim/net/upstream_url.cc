#include "shim/net/upstream_url.h"

#include "shim/net/http_request.h"

namespace sandshim::net {

static std::string Base64(std::string_view in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = uint8_t(in[i]) << 16 | uint8_t(in[i + 1]) << 8 | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += k[(v >> s) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16 | (i + 1 < in.size() ? uint8_t(in[i + 1]) << 8 : 0);
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<UpstreamProxy> ParseProxyUrl(const std::string& url) {
  UpstreamProxy u;
  std::string_view s = url;
  if (s.rfind("http://", 0) != 0) return MakeError("--proxy '" + url + "': only http:// upstream proxies", EINVAL);
  s.remove_prefix(7);
  if (auto slash = s.find('/'); slash != std::string_view::npos) s = s.substr(0, slash);
  if (auto at = s.rfind('@'); at != std::string_view::npos) {
    u.authorization = "Basic " + Base64(s.substr(0, at));
    s = s.substr(at + 1);
  }
  // Reuse the CONNECT authority parser; the port is optional here.
  auto t = ParseConnectTarget(s.find(':') == std::string_view::npos || (s.front() == '[' && s.back() == ']')
                                  ? std::string(s) + ":80"
                                  : std::string(s));
  if (!t) return t.error().Wrap("--proxy '" + url + "'");
  u.host = t->host;
  u.port = t->port;
  return u;
}

}  // namespace sandshim::net
