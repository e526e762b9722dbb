#include "bundle/session_profile.h"

#include <charconv>
#include <optional>

#include "bundle/process.h"
#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::bundle {
namespace json = boost::json;

Result<std::chrono::milliseconds> ParseDuration(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v < 0) return MakeError("invalid duration \"" + std::string(s) + "\"", EINVAL);
  std::string_view unit(p, static_cast<size_t>(s.data() + s.size() - p));
  double ms = 0;
  if (unit == "ms") ms = v;
  else if (unit.empty() || unit == "s") ms = v * 1e3;
  else if (unit == "m") ms = v * 60e3;
  else if (unit == "h") ms = v * 3600e3;
  else if (unit == "d") ms = v * 86400e3;
  else return MakeError("invalid duration \"" + std::string(s) + "\": unit must be ms, s, m, h or d", EINVAL);
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

namespace {

Result<std::string> Str(const json::value& v, std::string_view key) {
  if (!v.is_string()) return MakeError("profile: \"" + std::string(key) + "\" must be a string", EINVAL);
  return std::string(v.as_string());
}

Result<double> Num(const json::value& v, std::string_view key) {
  if (v.is_int64()) return static_cast<double>(v.as_int64());
  if (v.is_uint64()) return static_cast<double>(v.as_uint64());
  if (v.is_double()) return v.as_double();
  return MakeError("profile: \"" + std::string(key) + "\" must be a number", EINVAL);
}

// Sizes may be written as numbers (bytes) or strings ("512m").
Result<int64_t> Size(const json::value& v, std::string_view key) {
  if (v.is_string()) return ParseBytes(v.as_string());
  return static_cast<int64_t>(TRY(Num(v, key)));
}

// [{"name": "GH", "hosts": ["api.github.com"], "header": "Authorization: Bearer {}",
//   "from_file" | "from_env" | "from_fd": ...}]: the same checks as the flags.
Status ApplySecretsJson(const json::value& v, SessionProfile* p) {
  const char* shape = "profile: \"secrets\" must be an array of {\"name\", \"hosts\", \"header\", \"from_file\"|\"from_env\"|\"from_fd\"}";
  if (!v.is_array()) return MakeError(shape, EINVAL);
  for (const auto& e : v.as_array()) {
    if (!e.is_object()) return MakeError(shape, EINVAL);
    std::string name, header;
    std::vector<std::string> hosts, paths, methods, schemes;
    std::optional<std::pair<SecretSourceKind, std::string>> source;
    for (const auto& [k, f] : e.as_object()) {
      std::string key = "secrets." + std::string(k);
      if (k == "name") name = TRY(Str(f, key));
      else if (k == "header") header = TRY(Str(f, key));
      else if (k == "hosts" || k == "paths" || k == "methods" || k == "schemes") {
        if (!f.is_array()) return MakeError("profile: \"" + key + "\" must be an array of strings", EINVAL);
        auto& list = k == "hosts" ? hosts : k == "paths" ? paths : k == "methods" ? methods : schemes;
        for (const auto& h : f.as_array()) list.push_back(TRY(Str(h, key)));
      } else if (k == "from_file" || k == "from_env" || k == "from_fd") {
        auto kind = k == "from_file" ? SecretSourceKind::kFile : k == "from_env" ? SecretSourceKind::kEnv : SecretSourceKind::kFd;
        std::string where = f.is_int64() ? std::to_string(f.as_int64()) : TRY(Str(f, key));
        source.emplace(kind, where);
      } else {
        return MakeError("profile: unknown key \"" + key + "\"", EINVAL);
      }
    }
    std::string text = name + ":host=";
    for (size_t i = 0; i < hosts.size(); ++i) text += (i ? "," : "") + hosts[i];
    for (auto [key, list] : {std::pair{"path=", &paths}, {"method=", &methods}, {"scheme=", &schemes}})
      for (const auto& item : *list) text += "," + std::string(key) + item;
    if (!header.empty()) text += ":header=" + header;
    p->secrets.push_back(TRY(ParseSecretSpec(text)));
    if (source) p->secret_sources.push_back(TRY(ParseSecretSource(source->first, name + "=" + source->second)));
  }
  return Ok();
}

}  // namespace

Status ApplyProfileJson(const json::object& doc, SessionProfile* p, ProfileExtras* extras) {
  for (const auto& [k, v] : doc) {
    std::string key(k);
    if (key == "rootfs") p->rootfs = TRY(Str(v, key));
    else if (key == "image") extras->image = TRY(Str(v, key));
    else if (key == "workspace_dest") p->workspace_dest = TRY(Str(v, key));
    else if (key == "proxy") p->proxy = TRY(Str(v, key));
    else if (key == "hostname") p->hostname = TRY(Str(v, key));
    else if (key == "network") p->network = TRY(Str(v, key));
    else if (key == "network_stack") p->network_stack = TRY(Str(v, key));
    else if (key == "tmp_size") p->tmp_size = TRY(Str(v, key));
    else if (key == "memory") p->memory_bytes = TRY(Size(v, key));
    else if (key == "pids") p->pids = static_cast<int64_t>(TRY(Num(v, key)));
    else if (key == "cpus") p->cpus = TRY(Num(v, key));
    else if (key == "writable_layer") {
      if (!v.is_bool()) return MakeError("profile: \"writable_layer\" must be true or false", EINVAL);
      p->writable_layer = v.as_bool();
    } else if (key == "exec_timeout") extras->exec_timeout = TRY(ParseDuration(TRY(Str(v, key))));
    else if (key == "user") {
      auto [uid, gid] = TRY(ParseUser(TRY(Str(v, key))));
      p->uid = uid;
      p->gid = gid.value_or(uid);
    } else if (key == "env") {
      if (!v.is_object()) return MakeError("profile: \"env\" must be an object of strings", EINVAL);
      for (const auto& [ek, ev] : v.as_object())
        p->env.insert_or_assign(TRY(ParseEnv(std::string(ek) + "=" + TRY(Str(ev, "env." + std::string(ek))))).first,
                                std::string(ev.as_string()));
    } else if (key == "allow_domains" || key == "deny_domains" || key == "allow_cidrs") {
      auto& list = key == "allow_domains" ? p->allow_domains : key == "deny_domains" ? p->deny_domains : p->allow_cidrs;
      if (!v.is_array()) return MakeError("profile: \"" + key + "\" must be an array of strings", EINVAL);
      for (const auto& d : v.as_array()) list.push_back(TRY(Str(d, key)));
    } else if (key == "allow_private") {
      if (!v.is_bool()) return MakeError("profile: \"allow_private\" must be true or false", EINVAL);
      p->allow_private = v.as_bool();
    } else if (key == "network_policy") {
      // The shape platforms already write (shim/net/policy_file.h); checked by the session
      // layer, which owns the parser, before anything is created.
      if (!v.is_object()) return MakeError("profile: \"network_policy\" must be an object", EINVAL);
      p->egress_policy_json = json::serialize(v);
    } else if (key == "secrets") {
      TRY(ApplySecretsJson(v, p));
    } else if (key == "secret_trust_bundle") {
      p->secret_trust_bundle = TRY(Str(v, key));
    } else if (key == "policy" || key == "sources") {  // #19, checked by the session layer
      if (!v.is_object()) return MakeError("profile: \"" + key + "\" must be an object", EINVAL);
      (key == "policy" ? p->command_policy_json : p->sources_json) = json::serialize(v);
    } else if (key == "mounts") {
      if (!v.is_array()) return MakeError("profile: \"mounts\" must be an array of \"SRC:DST[:ro]\"", EINVAL);
      for (const auto& m : v.as_array()) p->mounts.push_back(TRY(ParseMount(TRY(Str(m, "mounts")))));
    } else {
      return MakeError("profile: unknown key \"" + key + "\"", EINVAL);
    }
  }
  if (!ValidNetworkMode(p->network)) return MakeError("profile: network must be " + std::string(kNetworkModes), EINVAL);
  if (!ValidNetworkStack(p->network_stack))
    return MakeError("profile: network_stack must be " + std::string(kNetworkStacks), EINVAL);
  return Ok();
}

Status LoadProfileFile(const std::string& path, SessionProfile* p, ProfileExtras* extras) {
  auto text = fs::ReadFile(path);
  if (!text) return text.error().Wrap("profile " + path);
  auto doc = TRY(ParseJson(*text, "profile " + path));
  if (!doc.is_object()) return MakeError("profile " + path + ": not a JSON object", EINVAL);
  if (auto s = ApplyProfileJson(doc.as_object(), p, extras); !s) return s.error().Wrap(path);
  return Ok();
}

// The network policy for records and audit lines: its upstreamProxy (top level or under
// "network") loses its credentials like the profile's own proxy; unparsable text is null.
static json::value PolicySummary(const std::string& text) {
  if (text.empty()) return nullptr;
  boost::system::error_code ec;
  auto doc = json::parse(text, ec);
  if (ec || !doc.is_object()) return nullptr;
  auto redact = [](json::object& o) {
    if (auto* u = o.if_contains("upstreamProxy"); u && u->is_string()) *u = RedactUrl(u->as_string());
  };
  redact(doc.as_object());
  if (auto* n = doc.as_object().if_contains("network"); n && n->is_object()) redact(n->as_object());
  return doc;
}

// Names, hosts and where each goes: never a value (there is none here) nor a placeholder.
static json::array SecretsSummary(const std::vector<SecretSpec>& secrets) {
  json::array out;
  for (const auto& s : secrets)
    out.push_back(json::object{{"name", s.name}, {"hosts", json::value_from(s.hosts)}, {"header", s.header},
                               {"paths", json::value_from(s.paths)}, {"methods", json::value_from(s.methods)},
                               {"schemes", json::value_from(s.schemes.empty() ? std::vector<std::string>{"https"} : s.schemes)}});
  return out;
}

json::object ProfileSummary(const SessionProfile& p) {
  json::array env_keys, mounts;
  for (const auto& [k, v] : p.env) env_keys.emplace_back(k);
  for (const auto& m : p.mounts) mounts.emplace_back(m.source + ":" + m.destination + (m.readonly ? ":ro" : ""));
  return {{"rootfs", p.rootfs},
          {"workspace_dest", p.workspace_dest},
          {"env_keys", std::move(env_keys)},
          {"mounts", std::move(mounts)},
          {"proxy", RedactUrl(p.proxy)},
          {"user", std::to_string(p.uid) + ":" + std::to_string(p.gid)},
          {"hostname", p.hostname},
          {"memory", p.memory_bytes},
          {"cpus", p.cpus},
          {"pids", p.pids},
          {"network", p.network},
          {"network_stack", p.network_stack},
          {"allow_domains", json::value_from(p.allow_domains)},
          {"deny_domains", json::value_from(p.deny_domains)},
          {"allow_cidrs", json::value_from(p.allow_cidrs)},
          {"allow_private", p.allow_private},
          {"network_policy", PolicySummary(p.egress_policy_json)},
          {"secrets", SecretsSummary(p.secrets)},
          {"tmp_size", p.tmp_size},
          {"writable_layer", p.writable_layer}};
}

}  // namespace sandshim::bundle
