// The egress proxy's secrets: for each, the hosts it is for, where its value goes and the
// placeholder the sandbox holds instead of it; the values themselves arrive later, over the
// control socket (secret_control.h), and live only here, in locked memory.
//
// Apply() is the whole policy for one request head (pure; unit-tested):
//   - a placeholder of a secret that is not for this host, anywhere in the request line or
//     headers: refused (rule "secret-exfiltration") -- the exfiltration guard;
//   - a placeholder of a secret for this host whose value is not set: refused ("secret-unset");
//   - a value would come back to the sandbox: refused ("secret-reflection"): the placeholder
//     in a header that origins echo by protocol or convention (Origin and the CORS request
//     headers, Referer, request ids, ...), or a TRACE/TRACK that a value would go into;
//   - otherwise every such placeholder in a header value becomes the value, and a secret
//     with a header template sets that header (any header of that name the client sent is
//     dropped), whether or not the client sent the placeholder.
//
// Scoping (credential contexts, docs/CONTEXTS.md): a secret may have an owner context. Its
// placeholder and template are used only for requests that carry that context's proxy
// identity (the relay authenticates it and passes it to Apply); a request from any other
// context (or the default one) carrying its placeholder is refused ("secret-context"), to
// any host. A secret without an owner is the session's: every context may use it. Owned
// secrets are declared at run time (Declare, over the control socket) and dropped with
// their context (Forget); they are addressed as "CONTEXT/NAME" (QualifiedName).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shim/core/result.h"
#include "shim/net/domain_rules.h"
#include "shim/net/secret_bytes.h"

namespace sandshim::net {

// One secret as the proxy is told about it (the rules file, written by the session layer).
struct SecretRuleSpec {
  std::string name;
  std::vector<std::string> hosts;
  std::string header;  // "Authorization: Bearer {}" or empty
  std::string placeholder;
  std::string context;  // the owner context; empty: the session's (every context may use it)
};
// "CONTEXT/NAME" for an owned secret, NAME for the session's.
std::string QualifiedName(std::string_view context, std::string_view name);
// [{"name","hosts","header","placeholder"}]
std::string FormatSecretRules(const std::vector<SecretRuleSpec>& rules);
Result<std::vector<SecretRuleSpec>> ParseSecretRules(std::string_view json_text);

// A secret host pattern, checked alone: a domain rule, but not "*" nor an IP-only wildcard
// (a secret for every host would make the exfiltration guard meaningless).
Status CheckSecretHost(std::string_view pattern);

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct Injection {
  bool refused = false;
  std::string rule, reason;            // when refused
  std::vector<std::string> injected;   // names of the secrets whose value went in
};

class SecretBook {
 public:
  SecretBook() = default;
  static Result<SecretBook> Make(const std::vector<SecretRuleSpec>& rules);
  bool empty() const { return rules_.empty(); }
  // True when some secret is for host:port: its CONNECT is intercepted, not tunnelled.
  bool Intercepts(std::string_view host, uint16_t port) const;
  // name: NAME (the session's) or CONTEXT/NAME (a context's).
  Status Set(std::string_view name, SecretBytes value);
  Status Remove(std::string_view name);
  // A context's secret, declared while the relay runs (again: its rules replaced, its value dropped).
  Status Declare(const SecretRuleSpec& spec);
  // Drops every secret (rules and values) the context owns.
  void Forget(std::string_view context);
  // context: the request's authenticated context ("" or "default": the default context).
  // method: the request's; a value never goes into a TRACE/TRACK (the origin echoes it back).
  Injection Apply(std::string_view host, uint16_t port, std::string_view target, HeaderList& headers,
                  std::string_view context = "", std::string_view method = "") const;

 private:
  struct Rule {
    SecretRuleSpec spec;
    DomainRules match;
  };
  const Rule* Find(std::string_view name) const;
  std::vector<Rule> rules_;
  std::map<std::string, SecretBytes, std::less<>> values_;
};

}  // namespace sandshim::net
