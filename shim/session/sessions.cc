#include "shim/session/sessions.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <unistd.h>

#include "bundle/session_profile.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/remove_tree.h"
#include "shim/core/scope_exit.h"
#include "shim/session/store/session_steps.h"
#include "shim/session/store/audit.h"
#include "shim/session/store/host.h"
#include "shim/session/workspace/bind_sources.h"
#include "shim/session/exec/exec_policy.h"
#include "shim/session/exec/exec_guard.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/workspace/idmap.h"
#include "shim/session/workspace/workspace_guard.h"
#include "shim/session/workspace/workspace_owner.h"
#include "shim/session/workspace/layer.h"
#include "shim/session/egress/network.h"
#include "shim/session/egress/relay_cgroup.h"
#include "shim/session/egress/secrets.h"
#include "shim/linux/netns.h"
#include "shim/net/relay.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

constexpr const char* kGvisorOverlayFlag = "--overlay2=root:memory";

Sessions::Sessions(runtime::Options o)
    : opts_(o), sys_(HostOf(o)), store_(RootLayout(o.root).sessions()), containers_(std::move(o)) {}
Sessions::Sessions(runtime::Options o, std::filesystem::path store_dir)
    : opts_(o), sys_(HostOf(o)), store_(std::move(store_dir)), containers_(std::move(o)) {}

static Error NoSession(const std::string& ref) { return MakeError("session " + ref + " does not exist", ENOENT); }

Result<std::string> Sessions::Resolve(const std::string& ref) const {
  if (ValidateId(ref) && fs::Exists(Dir(ref) / layout::kRecord)) return ref;
  if (!ValidateId(ref)) return NoSession(ref);
  std::error_code ec;
  auto target = std::filesystem::read_symlink(NameLink(ref), ec);
  if (ec || !ValidateId(target.string())) return NoSession(ref);
  return target.string();
}

Result<SessionRecord> Sessions::ReadRecord(const std::string& id) {
  auto text = fs::ReadFile(Dir(id) / layout::kRecord);
  if (!text) return NoSession(id);
  auto r = TRY(RecordFromJson(TRY(bundle::ParseJson(*text, "session " + id))));
  struct stat st;
  if (::stat((Dir(id) / layout::kLastUsed).c_str(), &st) == 0) {
    auto marked = log::Rfc3339(st.st_mtim);
    if (marked > r.last_used) r.last_used = marked;
  }
  return r;
}

void Sessions::MarkUsed(const std::string& id) {
  (void)sys_.Utimensat(AT_FDCWD, (Dir(id) / layout::kLastUsed).c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

Result<SessionRecord> Sessions::Load(const std::string& id) {
  auto r = TRY(ReadRecord(id));
  auto st = containers_.State(r.container_id);
  // "gone": the sandbox vanished although the session was not stopped (killed, host reboot).
  // A paused session is paused whatever a resume that died left (the next resume clears it).
  if (r.state == SessionState::kPaused) r.status = "paused";
  else r.status = st ? std::string(runtime::StatusName(st->status)) : r.state == SessionState::kStopped ? "stopped" : "gone";
  return r;
}

Result<SessionRecord> Sessions::Get(const std::string& ref) { return Load(TRY(Resolve(ref))); }

Status Sessions::Save(const SessionRecord& r, bool durable) {
  // 0600: the record names the workspace and the profile, which are the platform's business.
  return fs::WriteFileAtomic(Dir(r.id) / layout::kRecord, json::serialize(RecordToJson(r)), layout::kRecord.mode, durable);
}

// The one undo of a session's journal (its container's own journal undoes the container).
Status Sessions::Undo(const SessionStep& s) {
  return std::visit(
      runtime::Overloaded{
          [&](const step::SessionContainer& c) -> Status {
            auto d = containers_.Delete(c.id, /*force=*/true);
            return d || d.error().err_no == ENOENT ? Ok() : d;
          },
          [&](const step::SessionContext& c) { return UndoContext(containers_, c, sys_); },
          [&](const step::SessionContextSpare& c) { return UndoSpare(containers_, c); },
          [&](const step::SessionLayer& l) { return UnmountLayer(l.path, sys_); },
          [&](const step::WorkspaceGuard& g) { return UnguardWorkspace(g, sys_); },
          [](const step::SessionSnapshot& sn) { return fs::RemoveAll(sn.path); },
          [&](const step::SessionIdRange& r) -> Status {
            if (r.path.empty()) return ReleaseIdSlots(r.dir, r.session);
            return HostUnlink(sys_, r.path);
          },
          [](const step::Netns& n) -> Status {
            if (n.path.empty()) return MakeError("netns step without a path", EINVAL);
            return net::RemoveNetns(n.path);
          },
          [](const step::EgressRelay& r) -> Status {
            if (r.pid_file.empty()) return MakeError("egress-relay step without a pid_file", EINVAL);
            return net::StopRelayFromPidFile(r.pid_file);
          },
          [&](const step::SessionName& n) -> Status {
            // Only our own name: another session may hold it by now.
            std::error_code ec;
            if (std::filesystem::read_symlink(n.path, ec).string() == n.id) (void)HostUnlink(sys_, n.path);
            return Ok();
          },
      },
      s);
}

// M12 (relay_cgroup.h): the relay, charged to the session, sits in a child of the sandbox's
// cgroups; it is stopped and that child removed before the sandbox's cgroups are.
static std::filesystem::path RelayCgroupRecord(const std::filesystem::path& dir) { return dir / layout::kRelayCgroups; }

Status ReleaseRelay(const std::filesystem::path& dir) {
  if (!fs::Exists(RelayCgroupRecord(dir))) return Ok();
  TRY(StopSessionRelay(NetworkPaths(dir)));
  return UnchargeRelay(RelayCgroupRecord(dir));
}

Status Sessions::ChargeRelayToSession(const SessionRecord& r) {
  auto text = TRY(fs::ReadFile(NetworkPaths(Dir(r.id)).pid_file));
  auto relay = TRY(net::ParsePidFile(text));
  auto sandbox = TRY(containers_.State(r.container_id));
  return ChargeRelay(relay.process.pid, sandbox.init.pid, RelayCgroupRecord(Dir(r.id)));
}

Status Sessions::Teardown(const std::string& id, bool force) {
  if (auto s = ReleaseRelay(Dir(id)); !s) {
    if (!force) return s.error().Wrap("session " + id + ": relay");
    log::Warn("session " + id + ": relay: " + s.error().msg);
  }
  auto steps = TRY(StepsToUndo(id, force));
  TRY(runtime::Replay(steps, [this](const SessionStep& s) { return Undo(s); }));
  fault::Point("session.delete.after-replay");
  // fd-based and never following a link: layer/upper belongs to the session's uid, which may
  // be a real host user swapping directories for symlinks while we walk (review S2).
  return fs::RemoveTree(Dir(id));
}

// Claims an id range, and mounts the base (dir/base-id) and the workspace (dir/workspace-id)
// idmapped to it, journaling each step; on failure undoes its own steps (the caller then
// goes on without a user namespace). Returns the host id container id 0 maps to.
Result<uint32_t> Sessions::SetUpIdmap(SessionJournal& journal, const std::string& id, bundle::SessionProfile& p) {
  auto dir = Dir(id);
  std::filesystem::path slots = kHostIdRanges;  // host-wide (N12)
  auto owner = IdOwner(opts_.root, id);
  // Journaled before the claim: a crash in between leaves a slot its undo still finds.
  TRY(journal.Append(step::SessionIdRange{.dir = slots.string(), .session = owner}));
  uint32_t slot = TRY(ClaimIdSlot(slots, owner));
  fault::Point("session.create.after-idclaim");
  uint32_t base = IdBase(slot);
  auto attempt = [&]() -> Status {
    auto ns = TRY(MappingNamespace(base));
    TRY(journal.Append(step::SessionLayer{(dir / layout::kBaseId).string()}));
    TRY(IdmappedBind(p.rootfs, dir / layout::kBaseId, ns.get()));
    // #35: the session's user as the workspace's owner when someone else made it.
    return BindWorkspaceAsUser(journal, dir, p, base, kIdRangeSize, /*same_owner_too=*/true);
  };
  if (auto s = attempt(); !s) {
    (void)UnmountLayer(dir / layout::kWorkspaceId, sys_);
    (void)UnmountLayer(dir / layout::kBaseId, sys_);
    (void)HostUnlink(sys_, IdSlotFile(slots, slot));
    return s.error();
  }
  // The init (host ids base..) opens its rootfs and workspace below this directory: let its
  // group through, and no one else (the record and the spec with --env values stay 0600).
  if (sys_.Fchownat(AT_FDCWD, dir.c_str(), 0, base, 0) != 0 || sys_.Fchmodat(AT_FDCWD, dir.c_str(), 0710, 0) != 0)
    return ErrnoError("open " + dir.string() + " to the session's ids");
  return base;
}

Status Sessions::RunContainer(const SessionRecord& r, const std::filesystem::path& restore_image) {
  // Sessions made before sources were pinned have no file: nothing to compare with.
  if (auto pins = fs::ReadFile(Dir(r.id) / layout::kSources); pins) {
    const std::string what(layout::kSources.rel);
    auto v = TRY(bundle::ParseJson(*pins, what));
    if (!v.is_array()) return MakeError(what + ": not an array", EINVAL);
    TRY(VerifyPinned(v.get_array()));
  }
  // The sandbox outlives this call: it gets /dev/null, never the caller's stdio or fds.
  proc::DetachedStdio detached;
  runtime::CreateRequest req;
  req.id = r.container_id;
  req.bundle = Dir(r.id) / layout::kBundle;
  req.spec = TRY(bundle::LoadSpec(req.bundle));
  req.null_stdio = true;
  req.backend = r.backend;  // a restarted session keeps the backend it was created with
  req.restore_image = restore_image;  // a paused session's resume (session_pause.cc), a fork
  if (!restore_image.empty() && r.backend != "gvisor")
    return MakeError("only a gVisor session can be restored from a snapshot (this one runs on " + r.backend + ")",
                     ENOTSUP);
  // The base stays untouched: writes land in an overlay in the sandbox's memory. The user's
  // --runsc-flag come after it and win.
  if (r.layer == LayerKind::kGvisorOverlay) req.runsc_flags = {kGvisorOverlayFlag};
  TRY(containers_.Run(std::move(req), /*detach=*/true));
  return Ok();
}

std::vector<SessionRecord> Sessions::List() {
  std::vector<SessionRecord> out;
  for (const auto& id : store_.List())
    if (auto r = Load(id); r) out.push_back(std::move(*r));
  return out;
}

static int64_t TreeBytes(const std::filesystem::path& dir) {
  std::error_code ec;
  int64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += st.st_size;
  }
  return total;
}

Result<Inspection> Sessions::Inspect(const std::string& ref) {
  Inspection i;
  i.record = TRY(Get(ref));
  i.backend_reason = bundle::GetString(i.record.profile, "backend_reason");
  if (auto stats = containers_.Stats(i.record.container_id)) i.usage = UsageFromStats(*stats);
  i.workspace_bytes = TreeBytes(i.record.workspace);
  return i;
}

Result<SessionRecord> Sessions::Stop(const std::string& ref) {
  auto id = TRY(Resolve(ref));
  auto refill = TRY(WaitForRefill(Dir(id)));  // a spare being made (context_spare.h: lock order)
  auto lock = TRY(store_.Lock(id));
  auto r = TRY(Load(id));
  // No process stays: the relay goes too (its namespace, a mount, stays for the restart),
  // first, with its cgroup below the sandbox's.
  TRY_CTX(ReleaseRelay(Dir(id)), "session " + id + ": relay");
  TRY_CTX(StopContexts(containers_, Dir(id)), "session " + id);  // they end with the sandbox
  TRY_CTX(StopSpares(containers_, Dir(id)), "session " + id);
  auto s = containers_.Delete(r.container_id, /*force=*/true);
  if (!s && s.error().err_no != ENOENT) return s.error().Wrap("session " + id);
  if (r.network == NetworkMode::kProxy) TRY_CTX(StopSessionRelay(NetworkPaths(Dir(id))), "session " + id + ": stop relay");
  TRY(fs::RemoveAll(SnapshotDir(Dir(id))));  // a paused session's stop: its state is given up
  r.state = SessionState::kStopped;
  TRY(Save(r));
  (void)AppendAudit(r.audit, "stop", {{"session", id}, {"backend", r.backend}});
  r.status = "stopped";
  return r;
}

Result<SessionRecord> Sessions::Start(const std::string& ref) {
  auto id = TRY(Resolve(ref));
  // Before the lock and any work: the native backend runs from a sealed copy of sandshim.
  runtime::EnsureSealedFor(runtime::TraitsOf(TRY(ReadRecord(id)).backend));
  auto lock = TRY(store_.Lock(id));
  auto r = TRY(Load(id));
  if (r.state == SessionState::kPaused) return ResumeLocked(std::move(r));  // its state, not a fresh boot
  if (fs::Exists(SnapshotDir(Dir(id)))) {  // a pause that died: its sandbox ends (session_pause.cc)
    SessionGcReport rep;
    RecoverPause(id, r, rep);
    if (!rep.errors.empty()) return MakeError(rep.errors.front(), EIO);
    r.status = "gone";
  }
  if (r.status == "running") return r;
  // A sandbox that died (or was stopped) leaves a record in the runtime: clear it first.
  auto s = containers_.Delete(r.container_id, /*force=*/true);
  if (!s && s.error().err_no != ENOENT) return s.error().Wrap("session " + id);
  if (r.network == NetworkMode::kProxy) TRY_CTX(StartSessionRelay(NetworkPaths(Dir(id)), r.relay_args), "session " + id);
  if (r.network == NetworkMode::kProxy) TRY_CTX(AddressSandboxEnd(NetworkPaths(Dir(id))), "session " + id + ": relay link");
  TRY_CTX(RunContainer(r), "session " + id);
  if (r.network == NetworkMode::kProxy) TRY_CTX(ChargeRelayToSession(r), "session " + id + ": charge the relay to the session");
  r.state = SessionState::kRunning;
  r.last_used = log::NowRfc3339();
  TRY(Save(r));
  (void)AppendAudit(r.audit, "start", {{"session", id}, {"backend", r.backend}});
  r.status = "running";
  return r;
}

Status Sessions::Delete(const std::string& ref, bool force) {
  auto id = TRY(Resolve(ref));
  auto refill = TRY(WaitForRefill(Dir(id)));  // a spare being made (context_spare.h: lock order)
  auto lock = TRY(store_.Lock(id));
  auto r = Load(id);
  if (!r && !force) return r.error();
  if (!r) log::Warn("session " + id + ": " + r.error().msg + ": deleting what can be found");
  fault::Point("session.delete.before-replay");
  TRY_CTX(Teardown(id, force), "session " + id);
  if (r) (void)AppendAudit(r->audit, "delete", {{"session", id}, {"backend", r->backend}, {"execs", r->execs}});
  return Ok();
}

}  // namespace sandshim::session
