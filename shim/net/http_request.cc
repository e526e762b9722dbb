#include "shim/net/http_request.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <strings.h>

#include "shim/net/domain_rules.h"

namespace sandshim::net {

static Result<uint16_t> ParsePort(std::string_view s) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v == 0 || v > 65535)
    return MakeError("bad port '" + std::string(s) + "'", EINVAL);
  return static_cast<uint16_t>(v);
}

// Splits "host[:port]" / "[v6][:port]"; port 0 when absent.
static Result<Target> SplitAuthority(std::string_view a) {
  Target t;
  if (a.empty()) return MakeError("empty host", EINVAL);
  if (a.find('@') != std::string_view::npos) return MakeError("credentials in the target are not accepted", EINVAL);
  std::string_view host = a, port;
  if (a.front() == '[') {
    auto close = a.find(']');
    if (close == std::string_view::npos) return MakeError("unclosed '['", EINVAL);
    host = a.substr(1, close - 1);
    auto rest = a.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return MakeError("junk after ']'", EINVAL);
      port = rest.substr(1);
      if (port.empty()) return MakeError("empty port", EINVAL);
    }
    if (!IsIpLiteral(host)) return MakeError("'[" + std::string(host) + "]' is not an IPv6 address", EINVAL);
  } else {
    auto colon = a.rfind(':');
    if (colon != std::string_view::npos) {
      host = a.substr(0, colon);
      port = a.substr(colon + 1);
      if (port.empty()) return MakeError("empty port", EINVAL);
    }
  }
  t.host = NormalizeHost(host);
  if (t.host.empty()) return MakeError("empty host", EINVAL);
  bool ok = std::all_of(t.host.begin(), t.host.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == ':';
  });
  if (!ok) return MakeError("bad host '" + t.host + "'", EINVAL);
  if (!port.empty()) t.port = TRY(ParsePort(port));
  return t;
}

Result<Target> ParseConnectTarget(std::string_view target) {
  auto t = TRY_CTX(SplitAuthority(target), "CONNECT " + std::string(target));
  if (t.port == 0) return MakeError("CONNECT " + std::string(target) + ": port required", EINVAL);
  return t;
}

Result<Target> ParseAbsoluteTarget(std::string_view target) {
  constexpr std::string_view kScheme = "http://";
  if (target.size() < kScheme.size() || strncasecmp(target.data(), kScheme.data(), kScheme.size()) != 0) {
    if (!target.empty() && target.front() == '/')
      return MakeError("'" + std::string(target) + "' is not a proxy request (absolute-form http:// URL expected)",
                       EINVAL);
    return MakeError("'" + std::string(target) + "': only http:// URLs are forwarded (use CONNECT for TLS)", EINVAL);
  }
  auto rest = target.substr(kScheme.size());
  auto path_at = rest.find_first_of("/?#");
  auto t = TRY_CTX(SplitAuthority(rest.substr(0, path_at)), std::string(target));
  if (t.port == 0) t.port = 80;
  std::string_view path = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  if (auto hash = path.find('#'); hash != std::string_view::npos) path = path.substr(0, hash);
  t.origin_form = path.empty() || path.front() != '/' ? "/" + std::string(path) : std::string(path);
  return t;
}

bool IsHopByHop(std::string_view name) {
  static constexpr std::string_view kHop[] = {"connection", "keep-alive", "te", "trailer", "upgrade"};
  for (auto h : kHop)
    if (name.size() == h.size() && strncasecmp(name.data(), h.data(), h.size()) == 0) return true;
  return name.size() >= 6 && strncasecmp(name.data(), "proxy-", 6) == 0;
}

std::string Authority(std::string_view host, uint16_t port) {
  bool v6 = host.find(':') != std::string_view::npos;
  return (v6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + std::to_string(port);
}

static std::string Lower(std::string_view v) {
  std::string out(v);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> ForwardedHeaders(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::string> listed;  // the Connection header's tokens, lower case
  for (const auto& [name, value] : headers) {
    if (Lower(name) != "connection") continue;
    for (size_t at = 0; at <= value.size();) {
      size_t end = std::min(value.find(',', at), value.size());
      std::string token = Lower(value.substr(at, end - at));
      std::erase_if(token, [](char c) { return c == ' ' || c == '\t'; });
      if (token == "content-length" || token == "transfer-encoding" || token == "host")
        return MakeError("Connection may not name " + token + ": the proxy frames and routes the request by it", EINVAL);
      if (!token.empty()) listed.push_back(std::move(token));
      at = end + 1;
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& h : headers) {
    std::string lower = Lower(h.first);
    if (lower == "host" || IsHopByHop(h.first) || std::find(listed.begin(), listed.end(), lower) != listed.end()) continue;
    out.push_back(h);
  }
  return out;
}

std::string OriginHead(std::string_view method, const Target& t,
                       const std::vector<std::pair<std::string, std::string>>& headers, uint16_t default_port) {
  std::string h = std::string(method) + " " + t.origin_form + " HTTP/1.1\r\n";
  h += "Host: " + (t.port == default_port ? t.host : Authority(t.host, t.port)) + "\r\n";
  for (const auto& [name, value] : headers) {
    if (Lower(name) == "host" || IsHopByHop(name)) continue;  // (the gate dropped them already)
    h.append(name).append(": ").append(value).append("\r\n");
  }
  h += "Connection: close\r\n\r\n";
  return h;
}

Result<uint64_t> PlainBodyLength(bool has_transfer_encoding, bool has_content_length, uint64_t content_length) {
  if (has_transfer_encoding)
    return MakeError("request bodies with Transfer-Encoding are not relayed over plain HTTP (send Content-Length, or "
                     "use https)",
                     EINVAL);
  return has_content_length ? content_length : 0;
}

std::pair<std::string_view, std::string_view> SplitAfterHead(std::string_view buffered, uint64_t body_left) {
  size_t body = static_cast<size_t>(std::min<uint64_t>(body_left, buffered.size()));
  return {buffered.substr(0, body), buffered.substr(body)};
}

}  // namespace sandshim::net
