#include "shim/session/context_spec.h"

#include <cctype>


namespace sandshim::session {
namespace json = boost::json;

Status ValidateContextName(std::string_view name) {
  if (name.empty() || name.size() > 64) return MakeError("context name must be 1 to 64 characters", EINVAL);
  if (name == "." || name == "..") return MakeError("invalid context name \"" + std::string(name) + "\"", EINVAL);
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.')
      return MakeError("invalid context name \"" + std::string(name) + "\": only letters, digits, '_', '-' and '.'",
                       EINVAL);
  return Ok();
}

std::string ContextContainerId(std::string_view session_id, std::string_view name) {
  return "ctx-" + std::string(name) + "+" + std::string(session_id);
}

namespace {

// KEY=VALUE list with keys replaced in place or appended (the order stays stable).
void SetEnv(json::array& env, const std::string& key, const std::string& value) {
  for (auto& v : env)
    if (auto* s = v.if_string(); s && s->subview().substr(0, key.size() + 1) == key + "=") {
      v = key + "=" + value;
      return;
    }
  env.emplace_back(key + "=" + value);
}

json::object& Child(json::object& o, const char* key) {
  if (!o.if_contains(key) || !o[key].is_object()) o[key] = json::object{};
  return o[key].as_object();
}

// Native: the session's network namespace by path; every other namespace new (a pid
// namespace of its own above all). The user namespace stays as the session's spec asks: a
// new one with the same mappings, so the shared base and workspace read the same.
void JoinNetwork(json::object& linux_obj, const std::string& netns_path) {
  json::array kept;
  if (auto* nss = linux_obj.if_contains("namespaces") ? linux_obj["namespaces"].if_array() : nullptr)
    for (auto& ns : *nss)
      if (ns.is_object() && ns.as_object().if_contains("type") && ns.as_object().at("type") != "network")
        kept.push_back(ns);
  kept.push_back(json::object{{"type", "network"}, {"path", netns_path}});
  linux_obj["namespaces"] = std::move(kept);
}

}  // namespace

Result<json::object> ContextSpec(json::object spec, const ContextOptions& o, const ContextPlacement& at,
                                 const std::map<std::string, std::string>& proxy_env) {
  TRY(ValidateContextName(o.name));
  auto& process = Child(spec, "process");
  if (!process.if_contains("env") || !process["env"].is_array()) process["env"] = json::array{};
  auto& env = process["env"].as_array();
  for (const auto& [k, v] : proxy_env) SetEnv(env, k, v);
  for (const auto& [k, v] : o.env) SetEnv(env, k, v);
  auto& user = Child(process, "user");
  if (o.uid) user["uid"] = *o.uid;
  if (o.gid) user["gid"] = *o.gid;
  else if (o.uid) user["gid"] = *o.uid;
  user.erase("additionalGids");  // the session's groups are the session user's
  auto& annotations = Child(spec, "annotations");
  annotations["dev.sandshim.session.context"] = o.name;
  auto& linux_obj = Child(spec, "linux");
  if (at.backend == "gvisor") {
    // runsc puts a "container" into the sandbox the sandbox-id names; the runtime rewrites
    // the id to runsc's own and gives the container a pid namespace of its own
    // (gvisor_pod.cc). The sandbox has one netstack: the network is the session's.
    annotations["io.kubernetes.cri.container-type"] = "container";
    annotations["io.kubernetes.cri.sandbox-id"] = at.session_container;
  } else if (at.backend == "native") {
    // Empty: the host network (--network host), which the spec already shares.
    if (!at.netns_path.empty()) JoinNetwork(linux_obj, at.netns_path);
  } else {
    return MakeError("context " + o.name + ": unknown backend \"" + at.backend + "\"", EINVAL);
  }
  // The runtime places the context's cgroups by its own container id.
  linux_obj.erase("cgroupsPath");
  return spec;
}

Result<json::object> ContextContainerSpec(json::object session_spec, const ContextPlacement& at) {
  // Any valid name: it only reaches the annotation, which a container bound to no context drops.
  auto spec = TRY(ContextSpec(std::move(session_spec), ContextOptions{.name = "unbound"}, at));
  spec["annotations"].as_object().erase("dev.sandshim.session.context");
  return spec;
}

}  // namespace sandshim::session
