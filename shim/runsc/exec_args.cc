#include "shim/runsc/exec_args.h"

#include <sys/capability.h>

#include "bundle/oci_process.h"

namespace sandshim::runsc {
namespace json = boost::json;

static Result<uint64_t> CapabilitySet(const std::vector<std::string>& names, bool net_raw) {
  uint64_t bits = 0;
  for (const auto& name : names) {
    cap_value_t v;
    if (::cap_from_name(name.c_str(), &v) != 0 || v < 0 || v > 63) return MakeError("unknown capability " + name, EINVAL);
    if (v == CAP_NET_RAW && !net_raw) continue;
    bits |= uint64_t{1} << v;
  }
  return bits;
}

static json::array Array(const auto& items) {
  json::array out;
  for (const auto& i : items) out.emplace_back(i);
  return out;
}

Result<std::optional<json::object>> ExecArgsFor(const json::object& process, const std::string& container_id,
                                                bool net_raw) {
  // Strict: a mistyped uid or gid is an error naming the field, never uid 0.
  auto p = TRY(bundle::ReadProcess(process, "process"));
  if (p.terminal || !p.capabilities) return std::optional<json::object>();
  const auto& c = *p.capabilities;
  json::object task_caps{{"PermittedCaps", TRY(CapabilitySet(c.permitted, net_raw))},
                         {"InheritableCaps", TRY(CapabilitySet(c.inheritable, net_raw))},
                         {"EffectiveCaps", TRY(CapabilitySet(c.effective, net_raw))},
                         {"BoundingCaps", TRY(CapabilitySet(c.bounding, net_raw))},
                         {"AmbientCaps", TRY(CapabilitySet(c.ambient, net_raw))}};
  if (p.args.empty() || p.cwd.empty() || p.cwd[0] != '/')
    return MakeError("exec: args and an absolute cwd are required", EINVAL);
  return std::optional(json::object{{"argv", Array(p.args)},
                                    {"envv", Array(p.env)},
                                    {"wd", p.cwd},
                                    {"KUID", p.user.uid},
                                    {"KGID", p.user.gid},
                                    {"ExtraKGIDs", Array(p.user.additional_gids)},
                                    {"Capabilities", std::move(task_caps)},
                                    {"StdioIsPty", false},
                                    {"ContainerID", container_id}});
}

void SetGuestFds(json::object& exec_args, size_t n) {
  json::array fds;
  for (size_t i = 0; i < n; ++i) fds.emplace_back(i);
  exec_args["GuestFDs"] = std::move(fds);
}

}  // namespace sandshim::runsc
