// The runsc flag policy, in one place and pure. Registered with docker without flags, this
// host's runsc fails every `docker run` ("cannot run with network enabled in root network
// namespace"), so sandshim picks the network mode from the spec itself:
//   - a new network namespace that a prestart/createRuntime hook configures (docker's
//     libnetwork hook puts the bridge veth there): gVisor's own stack takes it over
//     (--network=sandbox, netstack), as raw runsc does where it works; see
//     net_sysctl_mask.h for what this runsc needs on a newer kernel;
//   - a network namespace with a path (docker's container:): shared with other containers,
//     so the host stack inside it (--network=host): netstack would strip the shared
//     interfaces' addresses; unless the spec's dev.sandshim.network-stack annotation says
//     the namespace is the container's own to take over ("netstack", what a proxy-mode
//     session sets: its namespace holds the sandbox's end of the relay link);
//   - a pod sandbox's namespace by path (CNI's, pod.h): only the pod's containers share it and
//     they all join this sandbox, so netstack, unless the annotation says "hostinet";
//   - a new namespace nobody configures: nothing to talk to (--network=none, loopback only);
//   - no network namespace at all (docker --network host): the host stack (--network=host).
// Users may override any policy flag with their own (--runsc-flag, config "runsc_flags"),
// e.g. --runsc-flag=--network=host to opt into the host stack (it exposes more of the host
// kernel to the sandbox).
#pragma once

#include <string>
#include <vector>

#include "bundle/session_spec.h"
#include "bundle/spec.h"

namespace sandshim::runsc {

using bundle::kNetworkStackAnnotation;  // "netstack" | "hostinet", bundle/session_spec.h

std::string NetworkMode(const bundle::Spec& spec);

struct PolicyInput {
  std::string platform;                 // from the probe: ptrace, kvm, systrap
  std::vector<std::string> user_flags;  // win over policy flags of the same name
  std::string debug_log;                // non-empty: --debug --debug-log=<it>
  // The runsc takes --overlay2 (probed): then --overlay2=none, so the root filesystem's writes
  // land in the bundle's rootfs as under runc, whatever the runsc's default (2022: none;
  // 2024: root:self, which keeps them in a filestore inside the sandbox: `docker diff` and
  // `docker cp` would not see them). A session's own --overlay2 (its private layer) or the
  // user's --overlay/--overlay2 wins.
  bool has_overlay2 = false;
};

std::vector<std::string> PolicyFlags(const bundle::Spec& spec, const PolicyInput& in);
// "--network=host" -> "network"; "--net-raw" -> "net-raw".
std::string FlagName(std::string_view flag);
// The network runsc will use given these flags: the last --network (user flags come last),
// or runsc's own default, "sandbox" (netstack).
std::string EffectiveNetwork(const std::vector<std::string>& flags);

}  // namespace sandshim::runsc
