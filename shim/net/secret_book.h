// The egress proxy's secrets: their rules (secret_rules.h) and their values, which arrive
// over the control socket (secret_control.h) and live only here, in locked memory.
//
// Apply() is the secrets' part of the request gate (request_gate.h) for one request head
// (pure; unit-tested), in this order, each refusal naming its rule:
//   - another context's placeholder anywhere: "secret-context" (docs/CONTEXTS.md);
//   - a placeholder of a secret that is not for this host, anywhere in the request line or
//     headers: "secret-exfiltration" -- the exfiltration guard;
//   - a placeholder of a secret for this host but sent outside its scope (scheme, path,
//     method): "secret-scope"; a template out of scope is simply not set;
//   - a placeholder whose secret has no value: "secret-unset";
//   - a value would come back to the sandbox: "secret-reflection": a TRACE/TRACK a value would
//     go into, a placeholder in a header name, or in any header other than the one the secret
//     names (or, naming none, the default credential headers), compared as origins compare
//     names (header_names.h: X_Request_Id is X-Request-Id to a WSGI app);
//   - a method-scoped secret with a method override (header or "_method=" query): "secret-scope";
//   - otherwise each placeholder becomes the value, and a template sets its header (every
//     header of the same canonical name the client sent is dropped).
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
#include "shim/net/secret_rules.h"

namespace sandshim::net {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// What the secrets see of one request.
struct SecretRequest {
  std::string_view host;
  uint16_t port = 0;
  bool tls = true;  // read inside an intercepted TLS connection; false: plain HTTP
  std::string_view method, target;
  std::string_view context;  // the authenticated context ("" or "default": the default one)
};

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
  // True when some secret may go into TLS to host:port: its CONNECT is intercepted.
  bool Intercepts(std::string_view host, uint16_t port) const;
  // name: NAME (the session's) or CONTEXT/NAME (a context's).
  Status Set(std::string_view name, SecretBytes value);
  Status Remove(std::string_view name);
  // A context's secret, declared while the relay runs (again: its rules replaced, its value dropped).
  Status Declare(const SecretRuleSpec& spec);
  // Drops every secret (rules and values) the context owns.
  void Forget(std::string_view context);
  // Checks headers against the secrets and puts the values in (or refuses: nothing changed).
  Injection Apply(const SecretRequest& req, HeaderList& headers) const;

 private:
  struct Rule {
    SecretRuleSpec spec;
    DomainRules match;
  };
  const Rule* Find(std::string_view name) const;
  Injection Guard(const SecretRequest& req, const HeaderList& headers, std::vector<const Rule*>& here) const;
  std::vector<Rule> rules_;
  std::map<std::string, SecretBytes, std::less<>> values_;
};

}  // namespace sandshim::net
