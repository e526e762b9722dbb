// Warm pools (docs/POOL.md): sandboxes booted ahead of time from a pool's profile, so a
// session is ready for its first command in milliseconds instead of gVisor's boot.
//
// A member is a real session (the same create, journal, teardown) kept in
// <root>/@pool/<name>/members/<member>/ with a workspace of its own. A claim turns one into
// the caller's session: it journals a claim intent, rebases the paths its journal and spec
// recorded, renames its workspace and its directory into <root>/@sessions/<id>/ (what the
// sandbox holds open follows a rename), binds id, name, environment and egress rules, and
// commits by writing the session record. A member serves one session and is never reused;
// a claim the pool cannot serve is a miss, which the caller turns into a cold create.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bundle/secret_spec.h"
#include "shim/runtime/containers.h"
#include "shim/session/pool/pool_def.h"
#include "shim/session/pool/pool_stats.h"
#include "shim/session/store/record.h"
#include "shim/session/exec/resolve_profile.h"
#include "shim/session/sessions.h"

namespace sandshim::session {

// What a claim binds to the member (everything else is the pool's profile).
struct ClaimRequest {
  std::string id, name;
  // Empty: the member's own workspace, renamed to <workspace_parent>/<id>. A path that does
  // not exist: the member's workspace renamed there (same filesystem). An existing
  // directory: a miss (docs/POOL.md: why, with numbers).
  std::string workspace;
  std::map<std::string, std::string> env;
  // Proxy-mode pools: egress rules added to the profile's for this session.
  std::vector<std::string> allow_domains, deny_domains, allow_cidrs;
  std::vector<std::string> resolve;  // test seam: the relay's fixed answers
  // The command policy and sources.json (#19) as JSON text, or empty: the pool profile's.
  // Bound at claim: policy.json written into the session's directory.
  std::string command_policy_json, sources_json;
  // Secrets (#17) need the session CA in the sandbox's trust from boot, which a member made
  // before the claim does not have: a claim with secrets is served cold (a miss).
  std::vector<bundle::SecretSpec> secrets;
  std::vector<bundle::SecretSource> secret_sources;
  std::string secret_trust_bundle;
};

// A claim that got no member, and why (the caller creates the session cold).
struct Miss {
  std::string reason;
};

struct ClaimOutcome {
  std::optional<SessionRecord> session;  // nullopt: a miss
  Miss miss;
  std::string member;
};

struct PoolStatus {
  PoolDef def;
  uint32_t ready = 0, stale = 0, making = 0;
  PoolStats stats;
};

struct PoolGcReport {
  std::vector<std::string> removed, errors;
};

class Pool {
 public:
  // refill_argv: how to run `sandshim [global flags] pool fill NAME` in the background.
  Pool(runtime::Options o, std::string name, std::vector<std::string> refill_argv = {});

  // Stores the definition from a pool file's text (replacing an older one: its members
  // become stale and the next fill drains them).
  static Result<PoolDef> Define(const runtime::Options& o, const std::string& name, std::string_view text);
  Result<PoolDef> Load() const;

  Result<ClaimOutcome> Claim(const ClaimRequest& req);
  // Creates members until `size` are ready (one fill at a time per pool: a second returns
  // at once); first drains stale and dead members and undoes interrupted claims.
  Status Fill();
  // Starts Fill in a detached process (own session, /dev/null stdio, no inherited fds).
  void RefillInBackground();
  // Deletes every member (the pool's definition stays).
  Status Drain();
  Result<PoolStatus> GetStatus();
  // Interrupted claims, half-made members, members of a definition that is gone or old,
  // workspaces no member owns.
  PoolGcReport Gc();
  // A miss served cold: a session created from the pool's profile with the claim's
  // bindings (in: the caller's flags; its profile file is the pool's). Counted, audited, and
  // a refill started.
  Result<SessionRecord> CreateCold(const ClaimRequest& req, ProfileInputs in, const std::string& reason);
  const PoolPaths& paths() const { return paths_; }
  void CountMiss();
  // Tests: the names of a claim's steps, in the order they start (store/assembly.h).
  void TraceClaim(std::vector<std::string>* trace) { claim_trace_ = trace; }

 private:
  std::vector<std::string> ReadyMembers(const PoolDef& d, uint32_t* stale);
  Result<std::string> MakeMember(const PoolDef& d);
  Status LinkSharedWorkspace(const std::string& member, const std::string& dest);
  Status AttachSharedWorkspace(SessionJournal& journal, const std::filesystem::path& to, const std::string& workspace_to,
                               bool existing, const std::string& dest);
  struct ClaimPlan;  // pool_claim.cc: a claim's steps
  Result<SessionRecord> ClaimMember(const PoolDef& d, const ClaimRequest& req, const bundle::SessionProfile& policy, const std::string& member,
                                   const std::string& workspace_to);
  // Undoes (or, when the member already moved, finishes undoing) an interrupted claim.
  // false: the claim is still running (its member lock is held), nothing done.
  Result<bool> RecoverClaim(const std::string& member);
  PoolGcReport GcImpl(bool sweep_members);
  Status RemoveMember(const std::string& member);

  runtime::Options opts_;
  std::string name_;
  PoolPaths paths_;
  std::vector<std::string> refill_argv_;
  Sessions members_;
  native::Sys& sys_;  // the host seam (store/host.h)
  std::vector<std::string>* claim_trace_ = nullptr;
};

// The member profile: the pool's profile file resolved (image built or reused) around workspace.
Result<bundle::SessionProfile> MemberProfile(const PoolPaths& paths, const std::string& workspace);
// A fresh workspace directory owned by the session's user.
Status MakeWorkspace(const std::filesystem::path& dir, uint32_t uid, uint32_t gid);
// A claim intent names the member (claims/<member>.json): it is taken.
bool HasIntent(const PoolPaths& p, const std::string& member);
// Whether a claim committed: dir holds the record of session `id`, read as a session record
// (so a record of another id whose name or workspace merely contains the id is not it). A
// record that does not read is an error: nothing is undone under a session we cannot name.
Result<bool> ClaimCommitted(const std::filesystem::path& dir, const std::string& id);

// Every pool under a root (for `pool status` with no name, metrics and gc).
std::vector<std::string> ListPools(const std::filesystem::path& root);

// `session snapshot --rm`: a snapshot a pool restores its members (and misses) from is kept
// (EBUSY: drain --delete the pool first); any other is deleted (Sessions::RemoveSnapshot).
Status RemoveUnpooledSnapshot(Sessions& sessions, const std::filesystem::path& root, const std::string& name);

}  // namespace sandshim::session
