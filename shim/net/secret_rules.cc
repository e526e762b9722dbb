#include "shim/net/secret_rules.h"

#include <boost/json.hpp>

#include "shim/net/domain_rules.h"
#include "shim/net/header_names.h"

namespace sandshim::net {

namespace json = boost::json;

std::string QualifiedName(std::string_view context, std::string_view name) {
  return context.empty() ? std::string(name) : std::string(context) + "/" + std::string(name);
}

std::string FormatSecretRules(const std::vector<SecretRuleSpec>& rules) {
  json::array a;
  for (const auto& r : rules) {
    json::object o{{"name", r.name}, {"hosts", json::value_from(r.hosts)}, {"header", r.header},
                   {"placeholder", r.placeholder}};
    if (!r.context.empty()) o["context"] = r.context;
    if (!r.paths.empty()) o["paths"] = json::value_from(r.paths);
    if (!r.methods.empty()) o["methods"] = json::value_from(r.methods);
    if (!r.schemes.empty()) o["schemes"] = json::value_from(r.schemes);
    a.push_back(std::move(o));
  }
  return json::serialize(a);
}

static std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* v = o.if_contains(key))
    for (const auto& e : v->as_array()) out.emplace_back(e.as_string());
  return out;
}

Result<std::vector<SecretRuleSpec>> ParseSecretRules(std::string_view text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_array()) return MakeError("secret rules: not a JSON array", EINVAL);
  std::vector<SecretRuleSpec> out;
  try {
    for (const auto& e : v.as_array()) {
      const auto& o = e.as_object();
      SecretRuleSpec r;
      r.name = std::string(o.at("name").as_string());
      r.hosts = Strings(o, "hosts");
      r.header = std::string(o.at("header").as_string());
      r.placeholder = std::string(o.at("placeholder").as_string());
      if (const auto* c = o.if_contains("context")) r.context = std::string(c->as_string());
      r.paths = Strings(o, "paths");
      r.methods = Strings(o, "methods");
      r.schemes = Strings(o, "schemes");
      out.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    return MakeError(std::string("secret rules: ") + e.what(), EINVAL);
  }
  return out;
}

Status CheckSecretHost(std::string_view pattern) {
  auto r = ParseDomainRule(pattern);
  if (!r) return MakeError("host \"" + std::string(pattern) + "\" can never match: " + r.error().msg, EINVAL);
  if (r->any) return MakeError("host \"*\" is every host: a secret must name the hosts it is for", EINVAL);
  if (r->host.empty() || r->host.find("..") != std::string::npos || r->host.find('*') != std::string::npos)
    return MakeError("host \"" + std::string(pattern) + "\" can never match a host name", EINVAL);
  return Ok();
}

std::string TemplateHeader(const SecretRuleSpec& r) {
  auto colon = r.header.find(':');
  return colon == std::string::npos ? "" : r.header.substr(0, colon);
}

// The one header a placeholder may go in, when the secret names one (template or bare name).
static std::string NamedHeader(const SecretRuleSpec& r) { return r.header.substr(0, r.header.find(':')); }

static Status CheckHeader(const SecretRuleSpec& r) {
  if (r.header.empty()) return Ok();
  std::string name = NamedHeader(r);
  bool token = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                       "!#$%&'*+-.^_`|~") == std::string::npos;
  if (!token) return MakeError("header \"" + name + "\" is not a header name", EINVAL);
  if (ReflectableHeader(name))
    return MakeError("header " + name + " is one origins send back (CORS, request ids, error pages): its value would "
                     "reach the sandbox; use Authorization or an API-key header",
                     EINVAL);
  if (name.find('_') != std::string::npos)
    return MakeError("header " + name + ": '_' in a header name is dropped by nginx and Apache; use '-'", EINVAL);
  return Ok();
}

static Status CheckScheme(const SecretRuleSpec& r) {
  for (const auto& s : r.schemes) {
    if (s != "http" && s != "https") return MakeError("scheme \"" + s + "\": want http or https", EINVAL);
    if (s != "http") continue;
    for (const auto& h : r.hosts) {
      auto rule = ParseDomainRule(h);
      if (!rule || rule->port == 0)
        return MakeError("scheme=http sends the value in clear: host \"" + h + "\" must name its port (" + h + ":80)",
                         EINVAL);
    }
  }
  return Ok();
}

Status CheckSecretScope(const SecretRuleSpec& r) {
  if (r.hosts.empty()) return MakeError("no hosts", EINVAL);
  for (const auto& h : r.hosts) TRY(CheckSecretHost(h));
  TRY(CheckHeader(r));
  TRY(CheckScheme(r));
  for (const auto& p : r.paths)
    if (p.empty() || p.front() != '/' || AmbiguousPath(p) || p.find_first_of("?# ") != std::string::npos)
      return MakeError("path \"" + p + "\": want a plain path prefix such as /v1/", EINVAL);
  for (const auto& m : r.methods) {
    bool upper = !m.empty() && m.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ-") == std::string::npos;
    if (!upper || m == "TRACE" || m == "TRACK" || m == "CONNECT")
      return MakeError("method \"" + m + "\": want an upper-case method such as POST (not TRACE, TRACK, CONNECT)", EINVAL);
  }
  return Ok();
}

bool PlaceholderHeaderAllowed(const SecretRuleSpec& r, std::string_view name) {
  // Only the plain spelling (letters, digits, '-'): "X_Api_Key" or "X.Api.Key" is one header to
  // one origin and another to the next, and a value has no business in either.
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") !=
                          std::string_view::npos)
    return false;
  if (ReflectableHeader(name)) return false;
  if (r.header.empty()) return DefaultCredentialHeader(name);
  return CanonicalHeaderName(name) == CanonicalHeaderName(NamedHeader(r));
}

bool SchemeInScope(const SecretRuleSpec& r, bool tls) {
  if (r.schemes.empty()) return tls;
  for (const auto& s : r.schemes)
    if (s == (tls ? "https" : "http")) return true;
  return false;
}

bool MethodInScope(const SecretRuleSpec& r, std::string_view method) {
  if (r.methods.empty()) return true;
  for (const auto& m : r.methods)
    if (m == method) return true;
  return false;
}

static int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool AmbiguousPath(std::string_view path) {
  if (path.find_first_of("\\;") != std::string_view::npos) return true;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') continue;
    int hi = i + 2 < path.size() ? Hex(path[i + 1]) : -1, lo = hi >= 0 ? Hex(path[i + 2]) : -1;
    if (lo < 0) return true;  // a bare '%': origins disagree on it
    char c = static_cast<char>(hi * 16 + lo);
    if (c == '.' || c == '/' || c == '\\' || c == '%' || c == ';' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = std::min(path.find('/', start), path.size());
    auto seg = path.substr(start, end - start);
    if (seg == "." || seg == "..") return true;
    start = end + 1;
  }
  return false;
}

bool PathInScope(const SecretRuleSpec& r, std::string_view target) {
  if (r.paths.empty()) return true;
  auto path = target.substr(0, target.find('?'));
  if (AmbiguousPath(path)) return false;
  for (const auto& p : r.paths)
    if (path.starts_with(p)) return true;
  return false;
}

}  // namespace sandshim::net
