#include "shim/session/contexts/context_spec.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "bundle/session_spec.h"
#include "ctx-helper/wire.h"
#include "shim/session/contexts/context_home.h"
#include "shim/session/contexts/ctx_helper.h"
#include "shim/session/contexts/trusted_context.h"

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

std::string GetEnv(const json::array& env, const std::string& key) {
  for (const auto& v : env)
    if (auto* s = v.if_string(); s && s->subview().substr(0, key.size() + 1) == key + "=")
      return std::string(s->subview().substr(key.size() + 1));
  return {};
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

// The broker's capabilities, with their numbers (linux/capability.h) for its --init-caps.
constexpr std::pair<const char*, int> kInitCaps[] = {
    {"CAP_KILL", 5}, {"CAP_SETGID", 6}, {"CAP_SETUID", 7}, {"CAP_SETPCAP", 8}, {"CAP_SYS_ADMIN", 21}};
constexpr const char* kInitOnlyCapsAnnotation = "dev.sandshim.context.init-only-caps";
constexpr const char* kExecUserAnnotation = "dev.sandshim.context.exec-user";

std::string Annotation(const json::object& spec, const char* key) {
  const auto* a = spec.if_contains("annotations");
  const auto* v = a && a->is_object() ? a->as_object().if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Adds cap to the bounding, effective and permitted sets; false if the bounding set had it.
bool AddCapability(json::object& process, const char* cap) {
  auto& caps = Child(process, "capabilities");
  if (!caps.if_contains("bounding") || !caps["bounding"].is_array()) caps["bounding"] = json::array{};
  for (const auto& v : caps["bounding"].as_array())
    if (v == cap) return false;
  for (const char* set : {"bounding", "effective", "permitted"}) {
    if (!caps.if_contains(set) || !caps[set].is_array()) caps[set] = json::array{};
    caps[set].as_array().emplace_back(cap);
  }
  return true;
}

void AllowBrokerUnshare(json::object& linux_obj) {
  auto* seccomp = linux_obj.if_contains("seccomp") ? linux_obj["seccomp"].if_object() : nullptr;
  auto* rules = seccomp && seccomp->if_contains("syscalls") ? (*seccomp)["syscalls"].if_array() : nullptr;
  if (!rules) return;  // no profile: nothing refuses it
  constexpr uint64_t kCloneNewnetNewipc = 0x40000000 | 0x08000000;  // the broker's one call
  rules->push_back(json::object{
      {"names", json::array{"unshare"}},
      {"action", "SCMP_ACT_ALLOW"},
      {"args", json::array{json::object{{"index", 0}, {"value", kCloneNewnetNewipc}, {"op", "SCMP_CMP_EQ"}}}}});
}

// Every context container gets its home and the trusted tools (a spare does not know whose
// or whether trusted it will be); only its execs' environment uses them.
void AddIdentityBinds(json::object& spec, const ContextPlacement& at) {
  if (!spec.if_contains("mounts") || !spec["mounts"].is_array()) spec["mounts"] = json::array{};
  auto& mounts = spec["mounts"].as_array();
  if (!at.home_path.empty())
    mounts.push_back(json::object{{"destination", kContextHome}, {"type", "bind"}, {"source", at.home_path},
                                  {"options", json::array{"rbind", "rw", "nosuid", "nodev"}}});
  if (!at.trusted_path.empty())
    mounts.push_back(json::object{{"destination", kTrustedDir}, {"type", "bind"}, {"source", at.trusted_path},
                                  {"options", json::array{"rbind", "ro", "nosuid", "nodev"}}});
}

}  // namespace

bool BindsTrustedTools(const json::object& spec) {
  const auto* mounts = spec.if_contains("mounts");
  if (!mounts || !mounts->is_array()) return false;
  return std::any_of(mounts->as_array().begin(), mounts->as_array().end(), [](const json::value& m) {
    const auto* o = m.if_object();
    return o && o->if_contains("destination") && o->at("destination") == kTrustedDir;
  });
}

// The context's environment: the proxy's, its own HOME, its --env, then what a trusted
// context's tools must see (which no --env overrides).
static Status SetContextEnv(json::object& process, const ContextOptions& o, const ContextPlacement& at,
                            const std::map<std::string, std::string>& proxy_env) {
  if (!process.if_contains("env") || !process["env"].is_array()) process["env"] = json::array{};
  auto& env = process["env"].as_array();
  for (const auto& [k, v] : proxy_env) SetEnv(env, k, v);
  // Its own home, not the workspace: its dotfiles are no file another context writes.
  if (!at.home_path.empty() && o.name != kDefaultContext) SetEnv(env, "HOME", kContextHome);
  for (const auto& [k, v] : o.env) SetEnv(env, k, v);
  if (o.trusted) {
    if (at.trusted_path.empty() || at.home_path.empty())
      return MakeError("a trusted context needs its home and the session's trusted tools", EINVAL);
    for (const auto& [k, v] : TrustedEnv(GetEnv(env, "PATH"), proxy_env)) SetEnv(env, k, v);
    SetEnv(env, "HOME", kContextHome);
  }
  return Ok();
}

Result<json::object> ContextSpec(json::object spec, const ContextOptions& o, const ContextPlacement& at,
                                 const std::map<std::string, std::string>& proxy_env) {
  TRY(ValidateContextName(o.name));
  auto& process = Child(spec, "process");
  // A native context's init is a host process for the context's whole life: it starts with
  // the session's environment, without the context's values (kInitEnvAnnotation).
  json::value init_env = process.contains("env") ? process.at("env") : json::array{};
  TRY(SetContextEnv(process, o, at, proxy_env));
  if (!at.in_session_sandbox) Child(spec, "annotations")[bundle::kInitEnvAnnotation] = json::serialize(init_env);
  auto& user = Child(process, "user");
  if (o.uid) user["uid"] = *o.uid;
  if (o.gid) user["gid"] = *o.gid;
  else if (o.uid) user["gid"] = *o.uid;
  user.erase("additionalGids");  // the session's groups are the session user's
  auto& annotations = Child(spec, "annotations");
  annotations["dev.sandshim.session.context"] = o.name;
  auto& linux_obj = Child(spec, "linux");
  if (at.in_session_sandbox) {
    // runsc puts a "container" into the sandbox the sandbox-id names; the runtime rewrites
    // the id to runsc's own and gives the container a pid namespace of its own
    // (gvisor_pod.cc). The sandbox has one netstack, whose root namespace is the session's.
    annotations["io.kubernetes.cri.container-type"] = "container";
    annotations["io.kubernetes.cri.sandbox-id"] = at.session_container;
    // runsc joins every container to that one netstack, and an exec lands in the sandbox's
    // root namespace: the context's own network namespace is made and held by its init, the
    // broker, which also starts the context's execs (docs/CONTEXTS.md).
    if (!at.broker_path.empty()) {
      json::array args{kCtxHelperPath, "init"};
      // The init is root: it makes the namespace (CAP_SYS_ADMIN), and forks commands as their
      // users (SETUID, SETGID, SETPCAP for their bounding set, KILL for their trees). What the
      // session's spec does not give is the init's only: it drops what it no longer needs
      // (helper.h), and ThroughBroker keeps it out of every exec. The context's user is the
      // execs' default (annotation).
      const auto& u = process["user"].as_object();
      annotations[kExecUserAnnotation] = json::serialize(u.at("uid")) + ":" + json::serialize(u.contains("gid") ? u.at("gid") : json::value(0));
      process["user"] = json::object{{"uid", 0}, {"gid", 0}};
      uint64_t mask = 0;
      std::string added;
      for (const auto& [name, bit] : kInitCaps)
        if (AddCapability(process, name)) {
          mask |= uint64_t{1} << bit;
          added += (added.empty() ? "" : ",") + std::string(name);
        }
      if (mask) {
        annotations[kInitOnlyCapsAnnotation] = added;
        char hex[20];
        std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(mask));
        args.insert(args.end(), {"--init-caps", hex});
      }
      // The session's seccomp profile allows unshare only with CAP_SYS_ADMIN (as Docker's): the
      // init's one call is allowed by its flag. Execs have no CAP_SYS_ADMIN, and the Sentry
      // checks that before any namespace is made (EPERM, as before this rule).
      AllowBrokerUnshare(linux_obj);
      if (!at.forward.empty()) args.insert(args.end(), {"--forward", json::string(at.forward)});
      process["args"] = std::move(args);
      process["terminal"] = false;
      if (!spec.if_contains("mounts") || !spec["mounts"].is_array()) spec["mounts"] = json::array{};
      auto bind = [&](const char* at_path, const std::string& source) {
        spec["mounts"].as_array().push_back(json::object{{"destination", at_path},
                                                         {"type", "bind"},
                                                         {"source", source},
                                                         {"options", json::array{"rbind", "ro", "nosuid", "nodev"}}});
      };
      bind(kCtxHelperPath, at.broker_path);
      if (!at.run_path.empty()) bind(kCtxRunPath, at.run_path);
      if (!at.path_file.empty()) bind(ctx::kPathFile, at.path_file);
    }
  }
  AddIdentityBinds(spec, at);
  if (!at.in_session_sandbox) {
    // Empty: the host network (--network host), which the spec already shares.
    if (!at.netns_path.empty()) JoinNetwork(linux_obj, at.netns_path);
  }
  // The runtime places the context's cgroups by its own container id.
  linux_obj.erase("cgroupsPath");
  return spec;
}

bool BrokerNetwork(const json::object& session_spec) {
  const auto* a = session_spec.if_contains("annotations");
  const auto* stack = a && a->is_object() ? a->as_object().if_contains(bundle::kNetworkStackAnnotation) : nullptr;
  if (stack && stack->is_string() && stack->as_string() == "hostinet") return false;
  const auto* l = session_spec.if_contains("linux");
  const auto* nss = l && l->is_object() ? l->as_object().if_contains("namespaces") : nullptr;
  if (!nss || !nss->is_array()) return false;
  for (const auto& ns : nss->as_array())  // no network namespace in the spec: the host's network
    if (ns.is_object() && ns.as_object().if_contains("type") && ns.as_object().at("type") == "network") return true;
  return false;
}

std::string BrokerExecUser(const json::object& context_spec) { return Annotation(context_spec, kExecUserAnnotation); }

bool HasBroker(const json::object& spec) {
  const auto* p = spec.if_contains("process");
  const auto* args = p && p->is_object() ? p->as_object().if_contains("args") : nullptr;
  return args && args->is_array() && !args->as_array().empty() && args->as_array()[0] == kCtxHelperPath;
}

static bool IsRunBind(const json::value& m) {
  const auto* o = m.if_object();
  return o && o->if_contains("destination") && o->at("destination") == kCtxRunPath;
}

bool BindsRunClient(const json::object& spec) {
  const auto* mounts = spec.if_contains("mounts");
  if (!mounts || !mounts->is_array()) return false;
  return std::any_of(mounts->as_array().begin(), mounts->as_array().end(), IsRunBind);
}

void UnbindRunClient(json::object& spec) {
  if (auto* mounts = spec.if_contains("mounts"); mounts && mounts->is_array()) {
    auto& list = mounts->as_array();
    list.erase(std::remove_if(list.begin(), list.end(), IsRunBind), list.end());
  }
}

// The context's exec client is this sandshim's own (the bind's source is named by its hash).
bool OwnRunClient(const json::object& spec) {
  const auto* mounts = spec.if_contains("mounts");
  if (!mounts || !mounts->is_array()) return false;
  for (const auto& m : mounts->as_array())
    if (IsRunBind(m) && m.as_object().if_contains("source") && m.as_object().at("source").is_string())
      return std::filesystem::path(std::string(m.as_object().at("source").as_string())).filename() == CtxRunFileName();
  return false;
}

Result<json::object> ThroughBroker(json::object process, const json::object& context_spec,
                                   const std::vector<std::string>& cap_add, bool end_leftovers, int lifeline) {
  // The init's own capabilities (ContextSpec) are not the exec's, unless it adds them. This
  // sandshim's own client keeps them (it enters the broker's network namespace and sets the
  // exec's user itself where the Sentry lets it: run/direct.h) and is told to drop them
  // (--drop-caps); an older client gets an exec without them.
  bool own_client = OwnRunClient(context_spec);
  uint64_t drop = 0;
  std::string only = Annotation(context_spec, kInitOnlyCapsAnnotation);
  auto* caps = process.if_contains("capabilities");
  for (size_t at = 0; caps && caps->is_object() && at < only.size();) {
    auto comma = only.find(',', at);
    if (comma == std::string::npos) comma = only.size();
    std::string cap = only.substr(at, comma - at);
    at = comma + 1;
    bool asked = std::find(cap_add.begin(), cap_add.end(), cap) != cap_add.end() ||
                 std::find(cap_add.begin(), cap_add.end(), cap.substr(4)) != cap_add.end();
    if (asked) continue;
    if (own_client) {
      for (const auto& [name, bit] : kInitCaps)
        if (cap == name) drop |= uint64_t{1} << bit;
      continue;
    }
    for (auto& [set, v] : caps->as_object())
      if (auto* list = v.if_array()) list->erase(std::remove(list->begin(), list->end(), json::value(cap)), list->end());
  }
  const auto* user = process.if_contains("user");
  const auto* args = process.if_contains("args");
  const auto* cwd = process.if_contains("cwd");
  if (!user || !user->is_object() || !args || !args->is_array() || args->as_array().empty() || !cwd || !cwd->is_string())
    return MakeError("exec through the context broker: the process has no user, args or cwd", EINVAL);
  auto number = [&](const char* key) -> Result<std::string> {
    const auto* v = user->as_object().if_contains(key);
    if (!v) return std::string("0");
    boost::system::error_code ec;
    auto n = v->to_number<uint32_t>(ec);
    if (ec) return MakeError(std::string("exec: user.") + key + " is not a 32-bit id", EINVAL);
    return std::to_string(n);
  };
  // The exec client: its own small program where the context's spec binds it; a context made
  // before that has only the helper, whose `run` is the same client.
  json::array wrapped = BindsRunClient(context_spec) ? json::array{kCtxRunPath} : json::array{kCtxHelperPath, "run"};
  wrapped.insert(wrapped.end(), {"--uid", json::string(TRY(number("uid"))), "--gid", json::string(TRY(number("gid")))});
  if (const auto* g = user->as_object().if_contains("additionalGids"); g && g->is_array() && !g->as_array().empty()) {
    std::string list;
    for (const auto& v : g->as_array()) {
      boost::system::error_code ec;
      auto n = v.to_number<uint32_t>(ec);
      if (ec) return MakeError("exec: user.additionalGids holds a value that is not a 32-bit id", EINVAL);
      list += (list.empty() ? "" : ",") + std::to_string(n);
    }
    wrapped.insert(wrapped.end(), {"--groups", json::string(list)});
  }
  wrapped.insert(wrapped.end(), {"--cwd", cwd->as_string()});
  if (drop) {
    char hex[20];
    std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(drop));
    wrapped.insert(wrapped.end(), {"--drop-caps", hex});
  }
  if (end_leftovers && own_client) wrapped.push_back("--end-leftovers");
  if (lifeline > 0 && own_client) wrapped.insert(wrapped.end(), {"--lifeline", json::string(std::to_string(lifeline))});
  wrapped.push_back("--");
  for (const auto& a : args->as_array()) wrapped.push_back(a);
  process["args"] = std::move(wrapped);
  process["user"] = json::object{{"uid", 0}, {"gid", 0}};
  process["cwd"] = "/";
  return process;
}

Result<json::object> ContextContainerSpec(json::object session_spec, const ContextPlacement& at) {
  // Any valid name: it only reaches the annotation, which a container bound to no context drops.
  auto spec = TRY(ContextSpec(std::move(session_spec), ContextOptions{.name = "unbound"}, at));
  spec["annotations"].as_object().erase("dev.sandshim.session.context");
  return spec;
}

}  // namespace sandshim::session
