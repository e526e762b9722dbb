#include "shim/net/secret_book.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "shim/net/header_names.h"
#include "shim/net/http_request.h"

namespace sandshim::net {

static Result<std::pair<SecretRuleSpec, DomainRules>> CheckRule(const SecretRuleSpec& r) {
  std::string who = "secret " + QualifiedName(r.context, r.name);
  if (r.name.empty() || r.name.find('/') != std::string::npos || r.context.find('/') != std::string::npos ||
      r.context == "default")
    return MakeError(who + ": bad name or context", EINVAL);
  if (r.placeholder.size() < 24 || !r.placeholder.starts_with("sshim-secret-")) return MakeError(who + ": bad placeholder", EINVAL);
  TRY_CTX(CheckSecretScope(r), who);
  return std::make_pair(r, TRY_CTX(DomainRules::Make(r.hosts, {}), who));
}

Result<SecretBook> SecretBook::Make(const std::vector<SecretRuleSpec>& rules) {
  SecretBook b;
  for (const auto& r : rules) TRY(b.Declare(r));
  return b;
}

Status SecretBook::Declare(const SecretRuleSpec& spec) {
  auto [s, match] = TRY(CheckRule(spec));
  for (const auto& r : rules_)
    if (r.spec.placeholder == s.placeholder && (r.spec.context != s.context || r.spec.name != s.name))
      return MakeError("secret " + QualifiedName(s.context, s.name) + ": placeholder already in use", EEXIST);
  std::string key = QualifiedName(s.context, s.name);
  std::erase_if(rules_, [&](const Rule& r) { return QualifiedName(r.spec.context, r.spec.name) == key; });
  if (auto it = values_.find(key); it != values_.end()) values_.erase(it);
  rules_.push_back({std::move(s), std::move(match)});
  return Ok();
}

void SecretBook::Forget(std::string_view context) {
  if (context.empty()) return;
  for (const auto& r : rules_)
    if (r.spec.context == context)
      if (auto it = values_.find(QualifiedName(r.spec.context, r.spec.name)); it != values_.end()) values_.erase(it);
  std::erase_if(rules_, [&](const Rule& r) { return r.spec.context == context; });
}

const SecretBook::Rule* SecretBook::Find(std::string_view name) const {
  for (const auto& r : rules_)
    if (QualifiedName(r.spec.context, r.spec.name) == name) return &r;
  return nullptr;
}

bool SecretBook::Intercepts(std::string_view host, uint16_t port) const {
  for (const auto& r : rules_)
    if (SchemeInScope(r.spec, true) && r.match.Decide(host, port).allowed) return true;
  return false;
}

Status SecretBook::Set(std::string_view name, SecretBytes value) {
  if (!Find(name)) return MakeError("unknown secret \"" + std::string(name) + "\" (not declared at session create)", ENOENT);
  values_.insert_or_assign(std::string(name), std::move(value));
  return Ok();
}

Status SecretBook::Remove(std::string_view name) {
  if (!Find(name)) return MakeError("unknown secret \"" + std::string(name) + "\" (not declared at session create)", ENOENT);
  if (auto it = values_.find(name); it != values_.end()) values_.erase(it);
  return Ok();
}

static void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// TRACE (and IIS's TRACK) return the request as the origin received it (RFC 9110 9.3.8).
static bool EchoMethod(std::string_view m) {
  return (m.size() == 5 && ::strncasecmp(m.data(), "TRACE", 5) == 0) ||
         (m.size() == 5 && ::strncasecmp(m.data(), "TRACK", 5) == 0);
}

// A query key as the frameworks that route by it read it: percent-decoded until nothing
// changes, '+' a space (form decoding), leading spaces dropped, '.', ' ', '-' and '[' made '_'
// (PHP's register rules) and what follows a '[' dropped ("_method[]"), lower case.
static std::string FrameworkQueryKey(std::string_view raw) {
  std::string key(raw);
  for (bool changed = true; changed;) {
    changed = false;
    std::string out;
    for (size_t i = 0; i < key.size(); ++i) {
      if (key[i] == '%' && i + 2 < key.size() && std::isxdigit(static_cast<unsigned char>(key[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
        out += static_cast<char>(std::stoi(key.substr(i + 1, 2), nullptr, 16));
        i += 2;
        changed = true;
      } else {
        out += key[i] == '+' ? ' ' : key[i];
      }
    }
    key = std::move(out);
  }
  key.erase(0, std::min(key.find_first_not_of(" \t"), key.size()));
  if (auto bracket = key.find('[', 1); bracket != std::string::npos) key.resize(bracket);
  for (auto& c : key) {
    if (c == '.' || c == ' ' || c == '-' || c == '[') c = '_';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

// A query key that Rails, Laravel, Symfony and method-override middleware route by.
static bool QueryOverridesMethod(std::string_view target) {
  auto q = target.find('?');
  if (q == std::string_view::npos) return false;
  std::string_view query = target.substr(q + 1);
  for (size_t at = 0; at <= query.size();) {
    size_t end = std::min(query.find_first_of("&;", at), query.size());
    std::string key = FrameworkQueryKey(query.substr(at, std::min(query.find('=', at), end) - at));
    if (key == "_method" || key == "method_override" || key == "x_http_method_override" || key == "x_http_method" ||
        key == "x_method_override")
      return true;
    at = end + 1;
  }
  return false;
}

// A form body (which the proxy does not read) may carry "_method" too.
static bool FormBody(const HeaderList& headers) {
  for (const auto& [k, v] : headers) {
    if (CanonicalHeaderName(k) != "content-type") continue;
    std::string type(v);
    for (auto& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (type.find("application/x-www-form-urlencoded") != std::string::npos || type.find("multipart/") != std::string::npos)
      return true;
  }
  return false;
}

static Injection Refused(std::string rule, std::string reason) {
  return {.refused = true, .rule = std::move(rule), .reason = std::move(reason), .injected = {}};
}

// Where each placeholder of a secret for this request may be: its header, and nowhere an
// origin could hand it back.
static Injection CheckPlacement(const SecretRuleSpec& s, std::string_view method, std::string_view target,
                                const HeaderList& headers) {
  const auto& ph = s.placeholder;
  for (const auto& [k, v] : headers) {
    if (k.find(ph) != std::string::npos)
      return Refused("secret-reflection", "the placeholder of secret " + s.name + " is in a header name");
    if (v.find(ph) != std::string::npos && !PlaceholderHeaderAllowed(s, k))
      return Refused("secret-reflection",
                     "the placeholder of secret " + s.name + " is in " + k + (ReflectableHeader(k) ? ", a header origins send back" : "") +
                         "; it may go only in " +
                         (s.header.empty() ? std::string("Authorization, X-Api-Key, Api-Key, X-Auth-Token or Private-Token")
                                           : s.header.substr(0, s.header.find(':'))) +
                         " (name another with header=NAME)");
    if (!s.paths.empty() && PathOverrideHeader(k))
      return Refused("secret-scope", "secret " + s.name + " is for some paths only: " + k + " would route the request elsewhere");
    if (MethodOverrideHeader(k) && (!s.methods.empty() || v.find_first_not_of(" \t") == std::string::npos ||
                                    EchoMethod(v.substr(v.find_first_not_of(" \t"), 5))))
      return Refused(s.methods.empty() ? "secret-reflection" : "secret-scope",
                     "secret " + s.name + " is not put into a request that " + k + " turns into another method");
  }
  if (!s.methods.empty() && QueryOverridesMethod(target))
    return Refused("secret-scope", "secret " + s.name + " is for some methods only: a _method query key is refused");
  if (!s.methods.empty() && FormBody(headers))
    return Refused("secret-scope", "secret " + s.name + " is for some methods only: a form body (which may carry _method) is refused");
  if (EchoMethod(method))
    return Refused("secret-reflection", std::string(method) + " echoes the request back: secret " + s.name +
                                            " is not put into it");
  return {};
}

Injection SecretBook::Guard(const SecretRequest& req, const HeaderList& headers, std::vector<const Rule*>& here) const {
  std::string_view context = req.context == "default" ? "" : req.context;
  auto carries = [&](std::string_view placeholder) {
    if (req.target.find(placeholder) != std::string_view::npos) return true;
    for (const auto& [k, v] : headers)
      if (v.find(placeholder) != std::string::npos || k.find(placeholder) != std::string::npos) return true;
    return false;
  };
  for (const auto& r : rules_) {
    bool sent = carries(r.spec.placeholder);
    const auto& name = r.spec.name;
    if (!r.spec.context.empty() && r.spec.context != context) {  // another context's: refused everywhere
      if (sent) return Refused("secret-context", "the request carries the placeholder of secret " + name + ", which belongs to another context");
      continue;
    }
    bool for_host = r.match.Decide(req.host, req.port).allowed;
    if (sent && !for_host)
      return Refused("secret-exfiltration", "the request to " + Authority(req.host, req.port) +
                                                " carries the placeholder of secret " + name + ", which is not for this host");
    if (!for_host) continue;
    bool scheme = SchemeInScope(r.spec, req.tls), method = MethodInScope(r.spec, req.method),
         path = PathInScope(r.spec, req.target);
    if (sent && !(scheme && method && path))
      return Refused("secret-scope", "secret " + name + " is not for this request's " +
                                         (!scheme ? std::string(req.tls ? "https" : "plain http (add scheme=http)")
                                                  : !method ? "method " + std::string(req.method) : std::string("path")));
    if (!(scheme && method && path)) continue;
    bool has_value = values_.contains(QualifiedName(r.spec.context, name));
    if (sent && !has_value) return Refused("secret-unset", "secret " + name + " has no value (set it with `session secret set`)");
    if (has_value && (sent || !TemplateHeader(r.spec).empty())) here.push_back(&r);
  }
  for (const Rule* r : here)
    if (auto bad = CheckPlacement(r->spec, req.method, req.target, headers); bad.refused) return bad;
  return {};
}

Injection SecretBook::Apply(const SecretRequest& req, HeaderList& headers) const {
  std::vector<const Rule*> here;
  if (auto refused = Guard(req, headers, here); refused.refused) return refused;
  Injection out;
  for (const Rule* r : here) {
    auto value = values_.find(QualifiedName(r->spec.context, r->spec.name))->second.View();
    std::string name = TemplateHeader(r->spec);
    if (name.empty()) {
      for (auto& [k, v] : headers) ReplaceAll(v, r->spec.placeholder, value);
    } else {
      std::string canonical = CanonicalHeaderName(name);
      std::erase_if(headers, [&](const auto& h) { return CanonicalHeaderName(h.first) == canonical; });
      std::string text = r->spec.header.substr(name.size() + 1);
      while (!text.empty() && text.front() == ' ') text.erase(0, 1);
      ReplaceAll(text, "{}", value);
      headers.emplace_back(name, std::move(text));
    }
    out.injected.push_back(r->spec.name);
  }
  return out;
}

}  // namespace sandshim::net
