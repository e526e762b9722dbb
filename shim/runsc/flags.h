// The runsc flag policy, in one place and pure. Registered with docker without flags, this
// host's runsc fails every `docker run` ("cannot run with network enabled in root network
// namespace"), so sandshim picks the network mode from the spec itself:
//   - a network namespace with a path (docker's bridge, CNI): join it and use the host stack
//     there (--network=host): the namespace is the container's own;
//   - a new network namespace that a prestart/createRuntime hook configures (docker's
//     libnetwork hook): the host stack inside it (--network=host);
//   - a new namespace nobody configures: nothing to talk to (--network=none, loopback only);
//   - no network namespace at all (docker --network host): the host stack (--network=host).
// Users may override any policy flag with their own (--runsc-flag, config "runsc_flags").
#pragma once

#include <string>
#include <vector>

#include "bundle/spec.h"

namespace sandshim::runsc {

std::string NetworkMode(const bundle::Spec& spec);

struct PolicyInput {
  std::string platform;                 // from the probe: ptrace, kvm, systrap
  std::vector<std::string> user_flags;  // win over policy flags of the same name
  std::string debug_log;                // non-empty: --debug --debug-log=<it>
};

std::vector<std::string> PolicyFlags(const bundle::Spec& spec, const PolicyInput& in);
// "--network=host" -> "network"; "--net-raw" -> "net-raw".
std::string FlagName(std::string_view flag);

}  // namespace sandshim::runsc
