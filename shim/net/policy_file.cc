#include "shim/net/policy_file.h"

#include <boost/json.hpp>
#include <map>

#include "shim/core/fs.h"

namespace sandshim::net {

namespace json = boost::json;

Result<std::vector<std::string>> RegistryDomains(std::string_view name) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kRegistries{
      {"npm", {"registry.npmjs.org"}},
      {"pypi", {"pypi.org", "files.pythonhosted.org"}},
      {"crates", {"crates.io", "static.crates.io", "index.crates.io"}},
      {"go", {"proxy.golang.org", "sum.golang.org"}},
      {"maven", {"repo1.maven.org", "repo.maven.apache.org"}},
      {"rubygems", {"rubygems.org"}},
  };
  auto it = kRegistries.find(name);
  if (it == kRegistries.end())
    return MakeError("unknown registry '" + std::string(name) + "' (known: npm, pypi, crates, go, maven, rubygems)",
                     EINVAL);
  return it->second;
}

std::vector<std::string> EgressPolicy::EffectiveAllow() const {
  std::vector<std::string> out = allowed_domains;
  for (const auto& r : allowed_registries) {
    auto d = RegistryDomains(r);
    if (d) out.insert(out.end(), d->begin(), d->end());
  }
  return out;
}

static Result<std::vector<std::string>> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) return MakeError("policy: '" + std::string(key) + "' must be an array of strings", EINVAL);
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) return MakeError("policy: '" + std::string(key) + "' must be an array of strings", EINVAL);
    out.emplace_back(e.get_string());
  }
  return out;
}

static Result<std::vector<std::string>> Concat(Result<std::vector<std::string>> a, Result<std::vector<std::string>> b) {
  if (!a) return a;
  if (!b) return b;
  a->insert(a->end(), b->begin(), b->end());
  return a;
}

Result<EgressPolicy> ParsePolicy(std::string_view text) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec) return MakeError("policy: not JSON: " + ec.message(), EINVAL);
  if (!doc.is_object()) return MakeError("policy: must be a JSON object", EINVAL);
  const json::object* net = &doc.get_object();
  if (const auto* n = net->if_contains("network")) {
    if (!n->is_object()) return MakeError("policy: 'network' must be an object", EINVAL);
    net = &n->get_object();
  }
  EgressPolicy p;
  p.allowed_domains = TRY(Strings(*net, "allowedDomains"));
  p.blocked_domains = TRY(Concat(Strings(*net, "blockedDomains"), Strings(*net, "deniedDomains")));
  p.allowed_registries = TRY(Strings(*net, "allowedRegistries"));
  p.allow_cidrs = TRY(Strings(*net, "allowCidrs"));
  for (const auto& r : p.allowed_registries) TRY(RegistryDomains(r));
  if (const auto* v = net->if_contains("allowPrivate")) {
    if (!v->is_bool()) return MakeError("policy: 'allowPrivate' must be true or false", EINVAL);
    p.allow_private = v->get_bool();
  }
  if (const auto* v = net->if_contains("upstreamProxy"); v && !v->is_null()) {
    if (!v->is_string()) return MakeError("policy: 'upstreamProxy' must be a string", EINVAL);
    p.upstream_proxy = std::string(v->get_string());
  }
  return p;
}

std::string PolicyJson(const EgressPolicy& p) {
  auto list = [](const std::vector<std::string>& v) { return json::array(v.begin(), v.end()); };
  json::object net{{"allowedDomains", list(p.allowed_domains)},     {"blockedDomains", list(p.blocked_domains)},
                   {"allowedRegistries", list(p.allowed_registries)}, {"allowCidrs", list(p.allow_cidrs)},
                   {"allowPrivate", p.allow_private}};
  if (!p.upstream_proxy.empty()) net["upstreamProxy"] = p.upstream_proxy;
  return json::serialize(json::object{{"network", std::move(net)}});
}

Result<EgressPolicy> LoadPolicy(const std::filesystem::path& file) {
  auto text = TRY_CTX(fs::ReadFile(file), "policy " + file.string());
  auto p = ParsePolicy(text);
  if (!p) return p.error().Wrap(file.string());
  return p;
}

}  // namespace sandshim::net
