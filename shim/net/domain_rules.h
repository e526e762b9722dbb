// Domain allow/deny lists of the egress proxy (pure; unit-tested).
//
// Entry forms (case-insensitive, a trailing dot is ignored):
//   example.com        exactly that host, any port
//   *.example.com      any subdomain, not the apex
//   .example.com       the apex and any subdomain (curl NO_PROXY / squid style)
//   host:443           any of the above, limited to one port
//   203.0.113.7        an IP literal ([2001:db8::1]:443 for IPv6 with a port)
//   *                  every host name (never an IP literal: raw-IP destinations must be
//                      named one by one, since a blanket "*" is usually meant for names)
// A deny match wins over any allow match. With no allow match the answer is deny with the
// rule "default-deny": an allowlist that forgets a domain fails closed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

struct DomainRule {
  std::string text;      // as written, for audit lines and 403 bodies
  std::string host;      // normalised; for wildcards the suffix without "*." / "."
  bool any = false;      // "*"
  bool subdomains = false;  // "*.x" or ".x"
  bool apex = true;         // false for "*.x"
  uint16_t port = 0;        // 0: any port
  bool Matches(std::string_view norm_host, bool host_is_ip, uint16_t port) const;
};

Result<DomainRule> ParseDomainRule(std::string_view text);
// Lower case, no trailing dot, no IPv6 brackets.
std::string NormalizeHost(std::string_view host);
// True when host (normalised) is an IPv4 or IPv6 literal.
bool IsIpLiteral(std::string_view host);

struct RuleDecision {
  bool allowed = false;
  std::string rule;    // the entry that decided, or "default-deny" / "raw-ip"
  std::string reason;  // one sentence for the 403 body
};

class DomainRules {
 public:
  static Result<DomainRules> Make(const std::vector<std::string>& allow, const std::vector<std::string>& deny);
  RuleDecision Decide(std::string_view host, uint16_t port) const;
  bool empty() const { return allow_.empty() && deny_.empty(); }

 private:
  std::vector<DomainRule> allow_, deny_;
};

}  // namespace sandshim::net
