#include "shim/runsc/exec_args.h"

#include <sys/capability.h>

#include "bundle/spec.h"

namespace sandshim::runsc {
namespace json = boost::json;

static Result<uint64_t> CapabilitySet(const json::object& caps, const char* set, bool net_raw) {
  uint64_t bits = 0;
  for (const auto& name : bundle::GetStrings(caps, set)) {
    cap_value_t v;
    if (::cap_from_name(name.c_str(), &v) != 0 || v < 0 || v > 63) return MakeError("unknown capability " + name, EINVAL);
    if (v == CAP_NET_RAW && !net_raw) continue;
    bits |= uint64_t{1} << v;
  }
  return bits;
}

Result<std::optional<json::object>> ExecArgsFor(const json::object& process, const std::string& container_id,
                                                bool net_raw) {
  const auto* t = process.if_contains("terminal");
  if (t && t->is_bool() && t->get_bool()) return std::optional<json::object>();
  const auto* caps = process.if_contains("capabilities");
  if (!caps || !caps->is_object()) return std::optional<json::object>();
  const auto& c = caps->get_object();
  json::object task_caps{{"PermittedCaps", TRY(CapabilitySet(c, "permitted", net_raw))},
                         {"InheritableCaps", TRY(CapabilitySet(c, "inheritable", net_raw))},
                         {"EffectiveCaps", TRY(CapabilitySet(c, "effective", net_raw))},
                         {"BoundingCaps", TRY(CapabilitySet(c, "bounding", net_raw))},
                         {"AmbientCaps", TRY(CapabilitySet(c, "ambient", net_raw))}};
  auto args = bundle::GetStrings(process, "args");
  auto cwd = bundle::GetString(process, "cwd");
  if (args.empty() || cwd.empty() || cwd[0] != '/') return MakeError("exec: args and an absolute cwd are required", EINVAL);
  json::array argv, envv, gids;
  for (const auto& a : args) argv.emplace_back(a);
  for (const auto& e : bundle::GetStrings(process, "env")) envv.emplace_back(e);
  int64_t uid = 0, gid = 0;
  if (const auto* user = bundle::GetObject(process, "user")) {
    if (const auto* v = user->if_contains("uid"); v && v->is_number()) uid = v->to_number<int64_t>();
    if (const auto* v = user->if_contains("gid"); v && v->is_number()) gid = v->to_number<int64_t>();
    if (const auto* v = user->if_contains("additionalGids"); v && v->is_array())
      for (const auto& g : v->get_array())
        if (g.is_number()) gids.emplace_back(g.to_number<int64_t>());
  }
  return std::optional(json::object{{"argv", std::move(argv)},
                                    {"envv", std::move(envv)},
                                    {"wd", cwd},
                                    {"KUID", uid},
                                    {"KGID", gid},
                                    {"ExtraKGIDs", std::move(gids)},
                                    {"Capabilities", std::move(task_caps)},
                                    {"StdioIsPty", false},
                                    {"ContainerID", container_id}});
}

}  // namespace sandshim::runsc
