#include "shim/session/pool/pool_egress.h"

#include "bundle/session_profile.h"
#include "shim/core/fs.h"
#include "shim/net/relay.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/egress/network.h"
#include "shim/session/egress/relay_cgroup.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

Status ReleaseMemberEgress(const SessionRecord& member, const std::filesystem::path& member_dir) {
  if (member.network != NetworkMode::kProxy) return Ok();
  TRY(StopSessionRelay(NetworkPaths(member_dir)));
  return UnchargeRelay(member_dir / layout::kRelayCgroups);
}

Result<std::vector<std::string>> BindClaimEgress(runtime::Containers& containers, const PoolPaths& pool,
                                                 const SessionRecord& session, const std::filesystem::path& session_dir,
                                                 const ClaimRequest& req) {
  if (session.network != NetworkMode::kProxy) return session.relay_args;
  // The pool's rules as its profile file states them (no image resolution: latency), then the claim's.
  bundle::SessionProfile p;
  bundle::ProfileExtras extras;
  TRY(bundle::LoadProfileFile(pool.profile.string(), &p, &extras));
  p.allow_domains.insert(p.allow_domains.end(), req.allow_domains.begin(), req.allow_domains.end());
  p.deny_domains.insert(p.deny_domains.end(), req.deny_domains.begin(), req.deny_domains.end());
  p.allow_cidrs.insert(p.allow_cidrs.end(), req.allow_cidrs.begin(), req.allow_cidrs.end());
  auto policy = TRY(CheckEgressRules(p));
  NetworkPaths paths(session_dir);
  auto args = RelayProxyArgs(p, policy, paths, session.id, session.audit, req.resolve);
  std::ranges::copy(ContextPathArgs(session.backend), std::back_inserter(args));
  if (policy) TRY(fs::WriteFileAtomic(paths.policy, net::PolicyJson(*policy), 0600));
  TRY(fs::MkdirAll(std::filesystem::path(session.audit).parent_path(), 0700));
  TRY(StartSessionRelay(paths, args));
  auto relay = TRY(net::ParsePidFile(TRY(fs::ReadFile(paths.pid_file))));
  auto sandbox = TRY(containers.State(session.container_id));
  TRY(ChargeRelay(relay.process.pid, sandbox.init.pid, session_dir / layout::kRelayCgroups));
  return args;
}

}  // namespace sandshim::session
