#include "shim/runsc/flags.h"

#include <algorithm>

#include "shim/runsc/pod.h"

namespace sandshim::runsc {

static bool HasHook(const bundle::Spec& spec, std::string_view kind) {
  const auto* hooks = bundle::GetObject(spec.doc, "hooks");
  const auto* list = hooks ? bundle::GetArray(*hooks, kind) : nullptr;
  return list && !list->empty();
}

static std::string StackAnnotation(const bundle::Spec& spec) {
  auto it = spec.annotations.find(kNetworkStackAnnotation);
  return it == spec.annotations.end() ? "" : it->second;
}

std::string NetworkMode(const bundle::Spec& spec) {
  const auto* ns = bundle::FindNamespace(spec, "network");
  // No namespace of its own: the host's network, which only the host stack can give.
  if (!ns) return "host";
  auto stack = StackAnnotation(spec);
  // A namespace by path is shared with other containers (docker's container:): netstack
  // would take its addresses away from them, so the sandbox uses the host stack inside it,
  // unless its maker says it is the container's own (a session's). A pod's sandbox is the
  // exception: CNI made the namespace for the pod, and the pod's other containers join this
  // sandbox, so netstack takes it over unless the pod asks for the host stack (CRI
  // port-forward dials in the host kernel's namespace: docs/KUBERNETES.md).
  if (!ns->path.empty()) {
    if (stack == "netstack") return "sandbox";
    if (stack == "hostinet") return "host";
    return PodInfoOf(spec.annotations).role == PodRole::kSandbox ? "sandbox" : "host";
  }
  // A new namespace that a hook configures (docker's libnetwork prestart hook puts the
  // bridge veth there) is the container's own: gVisor's netstack takes it over, so the
  // application never talks to the host kernel's network stack, unless the user opts into
  // the host stack. Without a hook it stays empty.
  if (HasHook(spec, "prestart") || HasHook(spec, "createRuntime")) return stack == "hostinet" ? "host" : "sandbox";
  return "none";
}

std::string FlagName(std::string_view flag) {
  while (!flag.empty() && flag.front() == '-') flag.remove_prefix(1);
  return std::string(flag.substr(0, flag.find('=')));
}

std::string EffectiveNetwork(const std::vector<std::string>& flags) {
  std::string mode = "sandbox";
  for (const auto& f : flags)
    if (FlagName(f) == "network" && f.find('=') != std::string::npos) mode = f.substr(f.find('=') + 1);
  return mode;
}

static bool WantsNetRaw(const bundle::Spec& spec) {
  // runsc drops CAP_NET_RAW unless told otherwise; runc keeps what the spec grants (docker's
  // default set includes it, so `ping` works under runc). Grant it only when the spec does.
  if (!spec.process || !spec.process->capabilities) return false;
  const auto& bounding = spec.process->capabilities->bounding;
  return std::find(bounding.begin(), bounding.end(), "CAP_NET_RAW") != bounding.end();
}

std::vector<std::string> PolicyFlags(const bundle::Spec& spec, const PolicyInput& in) {
  std::vector<std::string> policy{"--network=" + NetworkMode(spec)};
  if (!in.platform.empty()) policy.push_back("--platform=" + in.platform);
  if (WantsNetRaw(spec)) policy.emplace_back("--net-raw");
  // runsc ignores linux.seccomp unless asked: a denied syscall would succeed where runc returns
  // the spec's errno. With the flag the Sentry applies the filter to the guest's syscalls.
  if (spec.has_seccomp) policy.emplace_back("--oci-seccomp");
  if (in.has_overlay2) policy.emplace_back("--overlay2=none");
  if (!in.debug_log.empty()) {
    policy.emplace_back("--debug");
    policy.push_back("--debug-log=" + in.debug_log);
  }
  std::vector<std::string> out;
  for (const auto& f : policy) {
    // --overlay (deprecated) and --overlay2 choose the same thing: either overrides ours.
    auto same = [](const std::string& a, const std::string& b) {
      return a == b || (a.rfind("overlay", 0) == 0 && b.rfind("overlay", 0) == 0);
    };
    bool overridden = std::any_of(in.user_flags.begin(), in.user_flags.end(),
                                  [&](const std::string& u) { return same(FlagName(u), FlagName(f)); });
    if (!overridden) out.push_back(f);
  }
  out.insert(out.end(), in.user_flags.begin(), in.user_flags.end());
  return out;
}

}  // namespace sandshim::runsc
