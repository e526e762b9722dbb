#include "shim/net/domain_rules.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace sandshim::net {

std::string NormalizeHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  while (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string out(host);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  // IPv4 in the forms inet_aton takes (2130706433, 0x7f.1, 127.1, 0177.0.0.1) is an address,
  // not a name: written canonically, rules and the address checks see it as one, and it is
  // never handed to a resolver or an upstream proxy to interpret.
  unsigned char buf[16];
  in_addr v4{};
  bool numeric = !out.empty() && out.find_first_not_of("0123456789abcdefx.") == std::string::npos &&
                 std::isdigit(static_cast<unsigned char>(out.front()));
  if (numeric && inet_pton(AF_INET, out.c_str(), buf) != 1 && inet_aton(out.c_str(), &v4) == 1) {
    char text[INET_ADDRSTRLEN];
    if (inet_ntop(AF_INET, &v4, text, sizeof text)) out = text;
  }
  return out;
}

bool IsIpLiteral(std::string_view host) {
  std::string h(host);
  unsigned char buf[16];
  return inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
}

static bool ValidName(std::string_view h) {
  if (h.empty() || h.size() > 253) return false;
  return std::all_of(h.begin(), h.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == ':';
  });
}

Result<DomainRule> ParseDomainRule(std::string_view text) {
  DomainRule r;
  r.text = std::string(text);
  std::string_view s = text;
  auto bad = [&](std::string why) { return MakeError("domain rule '" + r.text + "': " + why, EINVAL); };
  if (s.empty()) return bad("empty");
  // Port: "[v6]:p", or "name:p" when there is exactly one colon (a bare v6 literal has more).
  std::string_view hostpart = s;
  if (s.front() == '[') {
    auto close = s.find(']');
    if (close == std::string_view::npos) return bad("unclosed '['");
    hostpart = s.substr(0, close + 1);
    auto rest = s.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return bad("junk after ']'");
      rest.remove_prefix(1);
      unsigned long p = 0;
      if (rest.empty() || rest.size() > 5 || !std::all_of(rest.begin(), rest.end(), ::isdigit) ||
          (p = std::stoul(std::string(rest))) == 0 || p > 65535)
        return bad("bad port");
      r.port = static_cast<uint16_t>(p);
    }
  } else if (std::count(s.begin(), s.end(), ':') == 1) {
    auto colon = s.find(':');
    hostpart = s.substr(0, colon);
    auto rest = s.substr(colon + 1);
    unsigned long p = 0;
    if (rest.empty() || rest.size() > 5 || !std::all_of(rest.begin(), rest.end(), ::isdigit) ||
        (p = std::stoul(std::string(rest))) == 0 || p > 65535)
      return bad("bad port");
    r.port = static_cast<uint16_t>(p);
  }
  std::string h = NormalizeHost(hostpart);
  if (h == "*") {
    r.any = true;
    return r;
  }
  if (h.rfind("*.", 0) == 0) {
    r.subdomains = true;
    r.apex = false;
    h = h.substr(2);
  } else if (h.rfind('.', 0) == 0) {
    r.subdomains = true;
    h = h.substr(1);
  }
  if (h.find('*') != std::string::npos) return bad("'*' is allowed only as a leading '*.' label");
  if (!ValidName(h)) return bad("not a host name");
  if (r.subdomains && IsIpLiteral(h)) return bad("wildcard on an IP address");
  r.host = h;
  return r;
}

bool DomainRule::Matches(std::string_view h, bool host_is_ip, uint16_t p) const {
  if (port != 0 && port != p) return false;
  if (any) return !host_is_ip;
  if (apex && h == host) return true;
  if (subdomains && h.size() > host.size() + 1 && h.ends_with(host) && h[h.size() - host.size() - 1] == '.')
    return true;
  return false;
}

Result<DomainRules> DomainRules::Make(const std::vector<std::string>& allow, const std::vector<std::string>& deny) {
  DomainRules r;
  for (const auto& a : allow) r.allow_.push_back(TRY(ParseDomainRule(a)));
  for (const auto& d : deny) r.deny_.push_back(TRY(ParseDomainRule(d)));
  return r;
}

// Names every resolver answers with loopback (RFC 6761 .localhost, Debian's /etc/hosts): an
// upstream proxy would reach its own host with them, so `*` does not cover them any more than
// it covers 127.0.0.1 (review M8 residue); a rule that names one still does.
static bool IsLoopbackName(std::string_view h) {
  return h == "localhost" || h.ends_with(".localhost") || h == "localhost.localdomain" || h == "ip6-localhost" ||
         h == "ip6-loopback";
}

RuleDecision DomainRules::Decide(std::string_view host, uint16_t port) const {
  std::string h = NormalizeHost(host);
  bool ip = IsIpLiteral(h) || IsLoopbackName(h);
  for (const auto& d : deny_)
    if (d.Matches(h, ip, port)) return {false, d.text, "denied by rule '" + d.text + "'"};
  for (const auto& a : allow_)
    if (a.Matches(h, ip, port)) return {true, a.text, "allowed by rule '" + a.text + "'"};
  if (IsLoopbackName(h)) return {false, "loopback-name", "loopback name " + h + " is not named by any allow rule"};
  if (ip) return {false, "raw-ip", "raw IP destination " + h + " is not named by any allow rule"};
  return {false, "default-deny", h + ":" + std::to_string(port) + " is not in the allowlist"};
}

}  // namespace sandshim::net
