// The one place a claim binds a session's network to a pool member (proxy-mode pools): the
// member's relay, started with the pool's rules, is stopped before the member moves, and a
// relay with the session's own rules (the pool's plus the claim's), audit file and id is
// started in the member's namespace once it is the session's. Other modes: nothing to bind.
//
// TODO(secrets): this is where the session's secrets reach the egress proxy: hand them to
// the relay started by BindClaimEgress (or, once the relay has a control channel,
// reconfigure the running one instead of restarting it). Nothing else in the claim sees them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shim/runtime/containers.h"
#include "shim/session/pool/pool.h"

namespace sandshim::session {

// Before the member moves: its relay stopped and uncharged (no-op outside proxy mode).
Status ReleaseMemberEgress(const SessionRecord& member, const std::filesystem::path& member_dir);

// After the member became the session at session_dir: the session's relay, running and
// charged to the sandbox. Returns the relay's arguments for the record (to restart it).
Result<std::vector<std::string>> BindClaimEgress(runtime::Containers& containers, const PoolPaths& pool,
                                                 const SessionRecord& session, const std::filesystem::path& session_dir,
                                                 const ClaimRequest& req);

}  // namespace sandshim::session
