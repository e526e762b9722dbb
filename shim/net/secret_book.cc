#include "shim/net/secret_book.h"

#include <strings.h>

#include <boost/json.hpp>

#include "shim/net/http_request.h"

namespace sandshim::net {

namespace json = boost::json;

std::string FormatSecretRules(const std::vector<SecretRuleSpec>& rules) {
  json::array a;
  for (const auto& r : rules)
    a.push_back(json::object{{"name", r.name}, {"hosts", json::value_from(r.hosts)}, {"header", r.header},
                             {"placeholder", r.placeholder}});
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

Result<SecretBook> SecretBook::Make(const std::vector<SecretRuleSpec>& rules) {
  SecretBook b;
  for (const auto& r : rules) {
    if (r.placeholder.size() < 24 || !r.placeholder.starts_with("sshim-secret-"))
      return MakeError("secret " + r.name + ": bad placeholder", EINVAL);
    for (const auto& h : r.hosts) TRY_CTX(CheckSecretHost(h), "secret " + r.name);
    b.rules_.push_back({r, TRY_CTX(DomainRules::Make(r.hosts, {}), "secret " + r.name)});
  }
  return b;
}

const SecretBook::Rule* SecretBook::Find(std::string_view name) const {
  for (const auto& r : rules_)
    if (r.spec.name == name) return &r;
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

Injection SecretBook::Apply(std::string_view host, uint16_t port, std::string_view target, HeaderList& headers) const {
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
    bool for_host = r.match.Decide(host, port).allowed;
    bool sent = carries(r.spec.placeholder);
    if (sent && !for_host)
      return refuse("secret-exfiltration", "the request to " + Authority(host, port) + " carries the placeholder of secret " +
                                               r.spec.name + ", which is not for this host");
    if (!for_host) continue;
    bool has_value = values_.find(r.spec.name) != values_.end();
    if (sent && !has_value)
      return refuse("secret-unset", "secret " + r.spec.name + " has no value (set it with `session secret set`)");
    if (has_value && (sent || !r.spec.header.empty())) here.push_back(&r);
  }
  for (const Rule* r : here) {
    auto value = values_.find(r->spec.name)->second.View();
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
