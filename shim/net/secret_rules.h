// One secret as the egress proxy is told about it, and where its value may go (pure;
// unit-tested). The session layer writes these rules (JSON) and checks each with
// CheckSecretRule before anything exists; the relay reads them at start or over its control
// socket (declare).
//
// Where a value may go, narrowest first:
//   - hosts: domain-rule forms (secret hosts are never "*");
//   - schemes: "https" (default: only into intercepted TLS, verified against the trust store)
//     and/or "http" (plain HTTP, in clear on the wire: then every host must name its port);
//   - paths: request-path prefixes ("/v1/"); a path with dot segments, ';' parameters,
//     backslashes or percent-encoded '.', '/', '\\', '%', ';' is in no scope, since origins
//     normalise those differently ("/v1/../echo" is "/echo" to most of them);
//   - methods: request methods, exactly ("POST"); a request carrying a method-override header
//     or "_method=" in its query is then refused, since the origin may route it as another;
//   - header: a template "Name: text {}" that the proxy sets, or a bare "Name": the one header
//     the placeholder may be written in. Neither: the default credential headers
//     (header_names.h). Never a header an origin may hand back (ReflectableHeader).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

struct SecretRuleSpec {
  std::string name;
  std::vector<std::string> hosts;
  std::string header;  // "Authorization: Bearer {}", "X-Api-Key", or empty
  std::string placeholder;
  std::string context;  // the owner context; empty: the session's (every context may use it)
  std::vector<std::string> paths, methods;
  std::vector<std::string> schemes;  // empty: {"https"}
};

// "CONTEXT/NAME" for an owned secret, NAME for the session's.
std::string QualifiedName(std::string_view context, std::string_view name);
// [{"name","hosts","header","placeholder"[,"context","paths","methods","schemes"]}]
std::string FormatSecretRules(const std::vector<SecretRuleSpec>& rules);
Result<std::vector<SecretRuleSpec>> ParseSecretRules(std::string_view json_text);

// A secret host pattern, checked alone: a domain rule, but not "*" nor an IP-only wildcard
// (a secret for every host would make the exfiltration guard meaningless).
Status CheckSecretHost(std::string_view pattern);
// Everything about a rule but its placeholder: hosts, scope, header (one-line errors).
Status CheckSecretScope(const SecretRuleSpec& r);

// The header a secret's template sets ("" without a template).
std::string TemplateHeader(const SecretRuleSpec& r);
// True when a placeholder of r may be written in the header named `name`.
bool PlaceholderHeaderAllowed(const SecretRuleSpec& r, std::string_view name);
// True when a request (its transport, method and target) is in r's scope.
bool SchemeInScope(const SecretRuleSpec& r, bool tls);
bool MethodInScope(const SecretRuleSpec& r, std::string_view method);
bool PathInScope(const SecretRuleSpec& r, std::string_view target);
// A path origins may read as another (dot segments, encoded separators, parameters).
bool AmbiguousPath(std::string_view path);

}  // namespace sandshim::net
