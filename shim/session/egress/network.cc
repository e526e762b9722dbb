#include "shim/session/egress/network.h"

#include <boost/json.hpp>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/net/address_policy.h"
#include "shim/net/domain_rules.h"
#include "shim/net/egress.h"
#include "shim/linux/netns.h"
#include "shim/net/policy_file.h"
#include "shim/net/relay.h"
#include "shim/net/veth.h"

namespace sandshim::session {

Result<RelayPolicy> CheckEgressRules(const bundle::SessionProfile& p) {
  for (const auto& d : p.allow_domains) TRY_CTX(net::ParseDomainRule(d), "--allow-domain");
  for (const auto& d : p.deny_domains) TRY_CTX(net::ParseDomainRule(d), "--deny-domain");
  for (const auto& c : p.allow_cidrs) TRY_CTX(net::ParseCidr(c), "--allow-cidr");
  RelayPolicy policy;
  if (!p.egress_policy_json.empty()) policy = TRY_CTX(net::ParsePolicy(p.egress_policy_json), "network policy");
  bool rules = !p.allow_domains.empty() || !p.deny_domains.empty() || !p.allow_cidrs.empty() ||
               p.allow_private || policy;
  if (rules && p.network != "proxy")
    return MakeError("egress rules (--allow-domain, --egress-policy, ...) need --network proxy", EINVAL);
  // The stack serves the link to the relay; other modes have no link to serve.
  if (p.network_stack != "netstack" && p.network != "proxy")
    return MakeError("--network-stack " + p.network_stack + " needs --network proxy", EINVAL);
  if (!p.proxy.empty()) {
    if (!policy) policy.emplace();
    policy->upstream_proxy = p.proxy;
  }
  return policy;
}

std::vector<std::string> RelayProxyArgs(const bundle::SessionProfile& p, const RelayPolicy& policy,
                                        const NetworkPaths& paths, const std::string& session,
                                        const std::string& audit_file, const std::vector<std::string>& resolve) {
  net::ProxyProcessOptions o;
  o.allow_domains = p.allow_domains;
  o.deny_domains = p.deny_domains;
  o.allow_cidrs = p.allow_cidrs;
  o.allow_private = p.allow_private;
  o.resolve = resolve;
  if (policy) o.policy_file = paths.policy.string();
  o.audit_file = audit_file;
  o.session = session;
  o.contexts_file = paths.contexts.string();
  return net::ProxyArgs(o);
}

static constexpr const char* kSandboxIf = "eth0";
static constexpr const char* kRelayIf = "relay0";

// The link carries IPv4 to the relay and nothing else: no IPv6 link-local addresses, so no
// neighbour discovery with the relay namespace's kernel. A host without IPv6 has no setting.
static Status IPv4Only(const NetworkPaths& paths) {
  for (const auto& [ns, dev] : {std::pair{paths.netns, kSandboxIf}, std::pair{paths.relay_netns, kRelayIf}}) {
    auto s = net::SetNetSysctl(ns, std::string("ipv6/conf/") + dev + "/disable_ipv6", "1");
    if (!s && s.error().err_no != ENOENT) return s;
  }
  return Ok();
}

Status AddressSandboxEnd(const NetworkPaths& paths) {
  if (!net::IsNetns(paths.relay_netns)) return Ok();  // a session from before the link: loopback
  return net::SetIPv4(paths.netns, kSandboxIf, bundle::kSandboxAddress, bundle::kRelayLinkPrefix);
}

Status StartSessionRelay(const NetworkPaths& paths, const std::vector<std::string>& relay_args) {
  net::RelayOptions r;
  r.netns = paths.netns;
  if (net::IsNetns(paths.relay_netns)) {  // else a session from before the link: loopback
    // Setting the address it has changes nothing; only the relay namespace's kernel has it.
    TRY_CTX(net::SetIPv4(paths.relay_netns, kRelayIf, bundle::kRelayAddress, bundle::kRelayLinkPrefix), "relay link");
    r.netns = paths.relay_netns;
    r.host = bundle::kRelayAddress;
  }
  if (RelayAlive(paths)) return Ok();
  r.port = bundle::kRelayPort;
  r.pid_file = paths.pid_file;
  r.log_file = paths.log;
  r.proxy_args = relay_args;
  TRY(net::StartRelay(r));
  return Ok();
}

Status SetUpProxyNetwork(SessionJournal& journal, const NetworkPaths& paths, const RelayPolicy& policy,
                         const std::vector<std::string>& relay_args) {
  TRY(journal.Append(step::Netns{paths.netns.string()}));
  TRY_CTX(net::CreateNetns(paths.netns), "network namespace");
  fault::Point("session.create.after-netns");
  TRY(journal.Append(step::Netns{paths.relay_netns.string()}));
  TRY_CTX(net::CreateNetns(paths.relay_netns), "relay network namespace");
  // Nothing but the relay's socket is for the sandbox there; no route out exists either.
  TRY_CTX(net::SetNetSysctl(paths.relay_netns, "ipv4/ip_forward", "0"), "relay network namespace");
  TRY_CTX(net::CreateVeth({paths.netns, kSandboxIf}, {paths.relay_netns, kRelayIf}), "relay link");
  TRY_CTX(IPv4Only(paths), "relay link");
  TRY_CTX(AddressSandboxEnd(paths), "relay link");
  fault::Point("session.create.after-link");
  if (policy) TRY(fs::WriteFileAtomic(paths.policy, net::PolicyJson(*policy), 0600));
  TRY(fs::WriteFileAtomic(paths.contexts, "", 0600));  // no contexts yet (contexts.h adds them)
  TRY(journal.Append(step::EgressRelay{paths.pid_file.string()}));
  TRY_CTX(StartSessionRelay(paths, relay_args), "egress relay");
  fault::Point("session.create.after-relay");
  return Ok();
}

Status StopSessionRelay(const NetworkPaths& paths) { return net::StopRelayFromPidFile(paths.pid_file); }

bool RelayAlive(const NetworkPaths& paths) {
  auto text = fs::ReadFile(paths.pid_file);
  if (!text) return false;
  auto h = net::ParsePidFile(*text);
  return h && proc::IsAlive(h->process);
}

}  // namespace sandshim::session
