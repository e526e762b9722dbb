#include "shim/net/secret_book.h"

#include <strings.h>

#include <boost/json.hpp>

#include "shim/net/http_request.h"

namespace sandshim::net {

namespace json = boost::json;

std::string FormatSecretRules(const std::vector<SecretRuleSpec>& rules) {
  json::array a;
  for (const auto& r : rules)
  {
    json::object o{{"name", r.name}, {"hosts", json::value_from(r.hosts)}, {"header", r.header},
                   {"placeholder", r.placeholder}};
    if (!r.context.empty()) o["context"] = r.context;
    a.push_back(std::move(o));
  }
  return json::serialize(a);
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
      for (const auto& h : o.at("hosts").as_array()) r.hosts.emplace_back(h.as_string());
      r.header = std::string(o.at("header").as_string());
      r.placeholder = std::string(o.at("placeholder").as_string());
      if (const auto* c = o.if_contains("context")) r.context = std::string(c->as_string());
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

std::string QualifiedName(std::string_view context, std::string_view name) {
  return context.empty() ? std::string(name) : std::string(context) + "/" + std::string(name);
}

static Result<std::pair<SecretRuleSpec, DomainRules>> CheckRule(const SecretRuleSpec& r) {
  std::string who = "secret " + QualifiedName(r.context, r.name);
  if (r.name.empty() || r.name.find('/') != std::string::npos || r.context.find('/') != std::string::npos ||
      r.context == "default")
    return MakeError(who + ": bad name or context", EINVAL);
  if (r.placeholder.size() < 24 || !r.placeholder.starts_with("sshim-secret-")) return MakeError(who + ": bad placeholder", EINVAL);
  if (r.hosts.empty()) return MakeError(who + ": no hosts", EINVAL);
  for (const auto& h : r.hosts) TRY_CTX(CheckSecretHost(h), who);
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
    if (r.match.Decide(host, port).allowed) return true;
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

// Request headers that origins send back by protocol or by common convention: CORS
// middleware answers Origin and Access-Control-Request-* in Access-Control-Allow-*, request-id
// middleware (Rails, Heroku, most API gateways) echoes the id, Stripe echoes Idempotency-Key,
// error and debug pages quote Referer and User-Agent. A value put into one of them would be
// handed straight back to the code that must never read it (red team: reflected Origin).
// This closes the standard echoes only; an origin that quotes any header (an echo endpoint)
// still returns what it got, which is why secret hosts should be APIs, and a header template
// (header=) names the only header a value goes into.
static bool ReflectedHeader(std::string_view name) {
  static constexpr std::string_view kExact[] = {
      "origin", "referer", "user-agent", "host", "via", "forwarded", "request-id", "x-request-id",
      "x-correlation-id", "correlation-id", "x-amzn-trace-id", "traceparent", "tracestate", "idempotency-key",
      "x-idempotency-key", "timing-allow-origin"};
  for (auto e : kExact)
    if (name.size() == e.size() && ::strncasecmp(name.data(), e.data(), e.size()) == 0) return true;
  static constexpr std::string_view kPrefix[] = {"access-control-", "x-forwarded-", "sec-"};
  for (auto p : kPrefix)
    if (name.size() >= p.size() && ::strncasecmp(name.data(), p.data(), p.size()) == 0) return true;
  return false;
}

// TRACE (and IIS's TRACK) return the request as the origin received it (RFC 9110 9.3.8).
static bool EchoMethod(std::string_view m) {
  return (m.size() == 5 && ::strncasecmp(m.data(), "TRACE", 5) == 0) ||
         (m.size() == 5 && ::strncasecmp(m.data(), "TRACK", 5) == 0);
}

Injection SecretBook::Apply(std::string_view host, uint16_t port, std::string_view target, HeaderList& headers,
                            std::string_view context, std::string_view method) const {
  if (context == "default") context = "";
  Injection out;
  auto refuse = [&](std::string rule, std::string reason) {
    out.refused = true;
    out.rule = std::move(rule);
    out.reason = std::move(reason);
    out.injected.clear();
    return out;
  };
  auto carries = [&](std::string_view placeholder) {
    if (target.find(placeholder) != std::string_view::npos) return true;
    for (const auto& [k, v] : headers)
      if (v.find(placeholder) != std::string::npos || k.find(placeholder) != std::string::npos) return true;
    return false;
  };
  // First the guard, over every secret, before anything is rewritten.
  std::vector<const Rule*> here;
  for (const auto& r : rules_) {
    bool sent = carries(r.spec.placeholder);
    bool mine = r.spec.context.empty() || r.spec.context == context;
    if (!mine) {  // another context's secret: never used here, its placeholder refused everywhere
      if (sent)
        return refuse("secret-context", "the request carries the placeholder of secret " + r.spec.name +
                                            ", which belongs to another context");
      continue;
    }
    bool for_host = r.match.Decide(host, port).allowed;
    if (sent && !for_host)
      return refuse("secret-exfiltration", "the request to " + Authority(host, port) + " carries the placeholder of secret " +
                                               r.spec.name + ", which is not for this host");
    if (!for_host) continue;
    bool has_value = values_.find(QualifiedName(r.spec.context, r.spec.name)) != values_.end();
    if (sent && !has_value)
      return refuse("secret-unset", "secret " + r.spec.name + " has no value (set it with `session secret set`)");
    if (has_value && (sent || !r.spec.header.empty())) here.push_back(&r);
  }
  // Then where the values would go: never where the origin hands them back.
  if (!here.empty() && EchoMethod(method))
    return refuse("secret-reflection", std::string(method) + " echoes the request back: secret " + here.front()->spec.name +
                                           " is not put into it");
  for (const Rule* r : here)
    for (const auto& [k, v] : headers)
      if (v.find(r->spec.placeholder) != std::string::npos && ReflectedHeader(k))
        return refuse("secret-reflection", "the placeholder of secret " + r->spec.name + " is in " + k +
                                               ", a header origins send back: put it in Authorization or an API-key header");
  for (const Rule* r : here) {
    auto value = values_.find(QualifiedName(r->spec.context, r->spec.name))->second.View();
    for (auto& [k, v] : headers) ReplaceAll(v, r->spec.placeholder, value);
    if (!r->spec.header.empty()) {
      std::string name = r->spec.header.substr(0, r->spec.header.find(':'));
      std::erase_if(headers, [&](const auto& h) { return ::strcasecmp(h.first.c_str(), name.c_str()) == 0; });
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
