// What the session layer needs to put a session in the `none` or `proxy` network mode, in
// journal order, with the undo for each journal kind. shim/net depends on core only, so the
// journal entry is passed as kind + data rather than as runtime::JournalEntry.
//
//   mode none:  journal {kind: "netns", data: {"path": NS}}           -> CreateNetns(NS)
//   mode proxy: the same, then the relay's namespace RN the same way, a veth pair between
//               them (veth.h: no entry of its own, it dies with either namespace), then
//               journal {kind: "egress-relay", data: {"pid_file": P}} -> StartRelay({.netns=RN,
//                                                     .host=<relay end>, .pid_file=P, ...})
//   spec:       the network namespace entry gets {"path": NS}; env HTTP(S)_PROXY /
//               http(s)_proxy = "http://<relay end>:" + port (shim/session/network.h).
//   delete/gc:  Replay newest first; for each entry with IsEgressKind(kind) call
//               UndoEgress(kind, data): StopRelayFromPidFile(P), then RemoveNetns(NS).
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

inline constexpr std::string_view kJournalNetns = "netns";
inline constexpr std::string_view kJournalRelay = "egress-relay";

boost::json::object NetnsJournalData(const std::filesystem::path& netns);
boost::json::object RelayJournalData(const std::filesystem::path& pid_file);
bool IsEgressKind(std::string_view kind);
// The undo for a "netns" or "egress-relay" entry; an unknown kind is an error.
Status UndoEgress(std::string_view kind, const boost::json::object& data);

// The filter flags of o as `sandshim proxy` arguments (for RelayOptions::proxy_args):
// allow/deny/cidr/resolve lists, policy, upstream, audit, session, limits, relay mode.
std::vector<std::string> ProxyArgs(const ProxyProcessOptions& o);
// The proxy variables for a relay on loopback (`sandshim proxy --detach --listen 127.0.0.1:PORT`
// in a namespace of a script's own); sessions' come from bundle/session_spec.
std::vector<std::string> ProxyEnv(uint16_t port);

}  // namespace sandshim::net
