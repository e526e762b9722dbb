// What the session layer needs to put a session in the `none` or `proxy` network mode, in
// journal order (the steps are shim/session/session_steps.h; shim/net depends on core only):
//
//   mode none:  journal step::Netns{NS}                               -> CreateNetns(NS)
//   mode proxy: the same, then the relay's namespace RN the same way, a veth pair between
//               them (veth.h: no entry of its own, it dies with either namespace), then
//               journal step::EgressRelay{P}                          -> StartRelay({.netns=RN,
//                                                     .host=<relay end>, .pid_file=P, ...})
//   spec:       the network namespace entry gets {"path": NS}; env HTTP(S)_PROXY /
//               http(s)_proxy = "http://<relay end>:" + port (shim/session/network.h).
//   delete/gc:  Replay newest first: StopRelayFromPidFile(P), then RemoveNetns(NS).
// Every undo is idempotent: missing files, dead or recycled pids count as done.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"
#include "shim/net/proxy_process.h"

namespace sandshim::net {

// The filter flags of o as `sandshim proxy` arguments (for RelayOptions::proxy_args):
// allow/deny/cidr/resolve lists, policy, upstream, audit, session, limits, relay mode.
std::vector<std::string> ProxyArgs(const ProxyProcessOptions& o);
// The proxy variables for a relay on loopback (`sandshim proxy --detach --listen 127.0.0.1:PORT`
// in a namespace of a script's own); sessions' come from bundle/session_spec.
std::vector<std::string> ProxyEnv(uint16_t port);

}  // namespace sandshim::net
