// Sessions for agent platforms: one command from a workspace directory to a running sandbox,
// then many execs, then delete. A session is a container ("sess-<id>") whose bundle sandshim
// writes from a SessionProfile, plus a directory <root>/@sessions/<id>/ holding its record
// (session.json), its write-ahead journal, its bundle and (native) its writable layer, all
// guarded by a flock. Everything a session creates is journaled before it is created, so
// delete and gc undo it whatever was interrupted when.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bundle/process.h"
#include "bundle/session_spec.h"
#include "shim/runtime/containers.h"
#include "shim/session/exec/approvals.h"
#include "shim/session/exec/exec_request.h"
#include "shim/session/exec/exec_runner.h"
#include "shim/session/exec/shell_state.h"
#include "shim/session/store/metrics.h"
#include "shim/session/store/record.h"
#include "shim/session/egress/secrets.h"
#include "shim/session/store/session_steps.h"
#include "shim/session/store/usage.h"
#include "shim/linux/sys.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

struct ExecPolicy;

struct Inspection {
  SessionRecord record;
  std::string backend_reason;
  ResourceUsage usage;         // what the sandbox uses now (unknown fields: nullopt)
  int64_t workspace_bytes = -1;  // -1: unknown
};

struct SessionGcReport {
  std::vector<std::string> removed, errors;
};

// A paused session's checkpoint image (session_pause.cc).
inline std::filesystem::path SnapshotDir(const std::filesystem::path& session_dir) { return session_dir / layout::kSnapshot; }
// Where a root keeps its named snapshots (session_snapshot.cc): <root>/@snapshots/<name>/.
inline std::filesystem::path SnapshotsDirOf(const std::filesystem::path& root) { return RootLayout(root).snapshots(); }
// Ends a session's relay and removes its cgroup below the sandbox's (stop, pause).
Status ReleaseRelay(const std::filesystem::path& session_dir);

class Sessions : public SessionLookup {
 public:
  explicit Sessions(runtime::Options o);
  // Sessions kept elsewhere than <root>/@sessions: a warm pool's members (session/pool.h).
  Sessions(runtime::Options o, std::filesystem::path store_dir);
  // resolve: the proxy's fixed-answer resolver (NAME=IP), a test seam; empty in real use.
  // from_snapshot: the sandbox is restored from that snapshot (Snapshot) instead of booted;
  // p must be its source's profile (the same mounts).
  Result<SessionRecord> Create(const std::string& id, const std::string& name, const bundle::SessionProfile& p,
                               const std::vector<std::string>& resolve = {}, const std::string& from_snapshot = "");
  // The one writer of a session's record and name link: the name (journaled first, refused
  // when taken), then session.json, the commit. Create ends with it; a pool claim hands its
  // member over with it (pool/pool_claim.cc). The caller holds the session's lock.
  Status Adopt(SessionJournal& journal, const SessionRecord& r);
  // Tests: the names of Create's steps, in the order they start (store/assembly.h).
  void TraceCreate(std::vector<std::string>* trace) { create_trace_ = trace; }
  // `session secret set|rm` (session_secrets.cc): a new value for a declared secret, used from
  // the next request on, or none (requests carrying its placeholder are then refused).
  // context: a credential context's own secret (session context create --secret); empty: the session's.
  Status SetSecret(const std::string& ref, const std::string& name, const net::SecretBytes& value,
                   const std::string& context = "");
  Status RemoveSecret(const std::string& ref, const std::string& name, const std::string& context = "");
  // The record of a session that can take an exec (not stopped), read once and without the
  // lock. The caller seals itself for its backend (runtime::EnsureSealedFor) before Exec.
  Result<SessionRecord> ForExec(const std::string& ref);
  // Runs a command in the session and stays with it (exit status, timeout, audit).
  Result<RunnerOutcome> Exec(const SessionRecord& r, const SessionExec& e);
  // #19, the command policy (session_policy.cc). Gate judges e by the session's policy;
  // Admit by the policy given (the seam for per-context policies).
  Result<ExecGate> Gate(const SessionRecord& r, const SessionExec& e);
  Result<ExecGate> Admit(const SessionRecord& r, const SessionExec& e, const ExecPolicy& policy);
  // #35, session files (files.h): a helper program (tar, cat, stat...) started in the session's
  // own container with the caller's descriptors, as the session's user unless user is given,
  // in the session's working directory. Not judged by the command policy: a files operation
  // is the platform's, not the agent's; files.cc audits it.
  Result<std::unique_ptr<proc::Running>> StartTool(const SessionRecord& r, const std::vector<std::string>& argv,
                                                   const std::string& user, const runtime::ExecStdio& io);
  // approve (kOnce, kAlways) or reject (kRejected) a pending approval.
  Result<Approval> DecideApproval(const std::string& ref, const std::string& approval, ApprovalState to);
  Result<std::vector<Approval>> Approvals(const std::string& ref);
  // ref is an id or a name.
  Result<SessionRecord> Get(const std::string& ref) override;
  std::vector<SessionRecord> List();
  Result<Inspection> Inspect(const std::string& ref);
  // Stop ends the sandbox (no process remains) and keeps the session; start runs it again.
  Result<SessionRecord> Stop(const std::string& ref);
  Result<SessionRecord> Start(const std::string& ref);
  // #35 (session_pause.cc): Pause checkpoints a gVisor session's sandbox to <dir>/snapshot
  // (root's, 0700) and ends it: no process and no sandbox memory stay; Resume (or Start)
  // restores its kernel (init tree, /tmp, writable layer) as it was (the 2024 runsc's restore
  // kills what execs started). Refused, with
  // the session untouched: natively, with credential contexts, and where the runsc cannot
  // restore what it saves (probed, runsc/checkpoint_probe.h).
  Result<SessionRecord> Pause(const std::string& ref);
  Result<SessionRecord> Resume(const std::string& ref);
  // #35 fork (session_snapshot.cc): the session paused, its image kept as the snapshot `name`
  // (<root>/@snapshots/<name>/, root's 0700), and resumed; Create(..., from_snapshot) then
  // restores new sessions from it. RemoveSnapshot deletes one, used or not: the verb goes
  // through RemoveUnpooledSnapshot (pool/pool.h), which keeps a pool's snapshot.
  Result<SessionRecord> Snapshot(const std::string& ref, const std::string& name);
  Status RemoveSnapshot(const std::string& name);
  // Every whole snapshot, by name: {"name", "source", "backend", "created", "bytes"}.
  boost::json::array ListSnapshots() const;
  // force: goes on past an unreadable journal or record (see Teardown), with a warning.
  Status Delete(const std::string& ref, bool force = false);
  // Half-made sessions (a create that died), and with idle, sessions unused for longer.
  SessionGcReport Gc(std::optional<std::chrono::milliseconds> idle);
  std::vector<SessionSample> Samples();

 private:
  struct CreatePlan;  // session_create.cc: Create's decisions and steps
  Status LinkName(SessionJournal& journal, const std::string& id, const std::string& name);
  std::filesystem::path Dir(const std::string& id) const { return store_.Dir(id); }
  std::filesystem::path NameLink(const std::string& name) const { return store_.root() / layout::kNames / name; }
  Result<std::string> Resolve(const std::string& ref) const;
  // The record with its live status (which asks the runtime about the sandbox).
  Result<SessionRecord> Load(const std::string& id);
  // The record alone, as exec needs it (status left empty).
  Result<SessionRecord> ReadRecord(const std::string& id);
  // Records that a command starts now: the mtime of <dir>/last-used (made at create), which
  // ReadRecord reports as last_used when it is newer than the record's. One syscall instead
  // of a locked read-modify-write of the record before the command starts (exec latency).
  // Never creates the file: a delete emptying the directory must not see it come back.
  // gc --idle counts from the last start, as before.
  void MarkUsed(const std::string& id);
  // durable: fsync'd (create, stop, start). Exec's bookkeeping (counters) is not: losing
  // it in a crash costs nothing, and exec latency is the product.
  Status Save(const SessionRecord& r, bool durable = true);
  // restore_image: booted from this checkpoint instead (a resume).
  Status RunContainer(const SessionRecord& r, const std::filesystem::path& restore_image = {});
  // The caller holds the lock and r is paused (Resume) or running (Pause).
  Result<SessionRecord> ResumeLocked(SessionRecord r);
  Result<SessionRecord> PauseLocked(SessionRecord r);
  std::filesystem::path SnapshotsDir() const { return SnapshotsDirOf(opts_.root); }
  // A snapshot's image for a create (empty name: none); an unknown one is an error.
  Result<std::filesystem::path> ForkImage(const std::string& name) const;
  // gc's part (the lock held): what a pause or resume that died left (session_pause.cc).
  void RecoverPause(const std::string& id, const SessionRecord& r, SessionGcReport& rep);
  // .tmp-NAME images that snapshots which died left (session_snapshot.cc), unless one is being made.
  void GcSnapshotLeftovers(SessionGcReport& rep);
  Result<uint32_t> SetUpIdmap(SessionJournal& journal, const std::string& id, bundle::SessionProfile& p);
  Status Undo(const SessionStep& s);
  // Replays the journal and removes the directory; the caller holds the lock. force (delete
  // --force, gc): past a journal it cannot read (session_salvage.cc).
  Status Teardown(const std::string& id, bool force = false);
  Result<std::vector<SessionStep>> StepsToUndo(const std::string& id, bool force);
  std::vector<SessionStep> FoundSteps(const std::string& id);
  // M12: moves the running relay into a child of the sandbox's cgroups (relay_cgroup.h).
  Status ChargeRelayToSession(const SessionRecord& r);
  Status SendToRelay(const std::string& ref, const std::string& name, const net::SecretBytes* value,
                     const std::string& context);
  Status UpdateAfterExec(const std::string& id, const RunnerOutcome& o, const std::string& started);
  void KeepShellState(const std::string& id, const std::string& context, const RunnerOutcome& o,
                      const CarryRule& rule);

  runtime::Options opts_;
  native::Sys& sys_;  // the host seam (store/host.h): the options' or the real calls
  runtime::StateStore store_;
  runtime::Containers containers_;
  std::vector<std::string>* create_trace_ = nullptr;
};

}  // namespace sandshim::session
