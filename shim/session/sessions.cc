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
#include "shim/net/netns.h"
#include "shim/net/relay.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

constexpr const char* kGvisorOverlayFlag = "--overlay2=root:memory";

Sessions::Sessions(runtime::Options o)
    : opts_(o), store_(RootLayout(o.root).sessions()), containers_(std::move(o)) {}
Sessions::Sessions(runtime::Options o, std::filesystem::path store_dir)
    : opts_(o), store_(std::move(store_dir)), containers_(std::move(o)) {}

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
  (void)::utimensat(AT_FDCWD, (Dir(id) / layout::kLastUsed).c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
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
          [&](const step::SessionContext& c) { return UndoContext(containers_, c); },
          [&](const step::SessionContextSpare& c) { return UndoSpare(containers_, c); },
          [](const step::SessionLayer& l) { return UnmountLayer(l.path); },
          [](const step::WorkspaceGuard& g) { return UnguardWorkspace(g); },
          [](const step::SessionSnapshot& sn) { return fs::RemoveAll(sn.path); },
          [](const step::SessionIdRange& r) -> Status {
            if (r.path.empty()) return ReleaseIdSlots(r.dir, r.session);
            return ::unlink(r.path.c_str()) == 0 || errno == ENOENT ? Ok() : ErrnoError("unlink " + r.path);
          },
          [](const step::Netns& n) -> Status {
            if (n.path.empty()) return MakeError("netns step without a path", EINVAL);
            return net::RemoveNetns(n.path);
          },
          [](const step::EgressRelay& r) -> Status {
            if (r.pid_file.empty()) return MakeError("egress-relay step without a pid_file", EINVAL);
            return net::StopRelayFromPidFile(r.pid_file);
          },
          [](const step::SessionName& n) -> Status {
            // Only our own name: another session may hold it by now.
            std::error_code ec;
            if (std::filesystem::read_symlink(n.path, ec).string() == n.id) ::unlink(n.path.c_str());
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
    (void)UnmountLayer(dir / layout::kWorkspaceId);
    (void)UnmountLayer(dir / layout::kBaseId);
    ::unlink(IdSlotFile(slots, slot).c_str());
    return s.error();
  }
  // The init (host ids base..) opens its rootfs and workspace below this directory: let its
  // group through, and no one else (the record and the spec with --env values stay 0600).
  if (::chown(dir.c_str(), 0, base) != 0 || ::chmod(dir.c_str(), 0710) != 0)
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

// A native session's writable layer: an overlay whose upper layer is on a tmpfs of its own,
// half the session's memory in size and charged to its memory cgroup as it is written, so a
// tenant's writes fill neither the state root's disk (which need not be a tmpfs: a red team
// wrote 300 MB past --memory 128m onto the host's disk) nor more than the session may hold.
static Status MountNativeLayer(SessionJournal& journal, const std::filesystem::path& store,
                               const std::filesystem::path& lower, const bundle::SessionProfile& p) {
  TRY(fs::MkdirAll(store, 0700));
  TRY(journal.Append(step::SessionLayer{store.string()}));
  // Half: a full layer still leaves the session's processes room to run (and to clean up).
  int64_t bytes = (p.memory_bytes > 0 ? p.memory_bytes : bundle::kDefaultSessionMemoryBackstop) / 2;
  std::string opts = "mode=0755,size=" + std::to_string(bytes);
  if (::mount("sandshim-layer-store", store.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return ErrnoError("mount the session's layer store at " + store.string());
  TRY(fs::MkdirAll(store / layout::kUpper, layout::kUpper.mode));
  // The merged root takes its owner from the upper directory: the session's root.
  if (p.id_base && ::chown((store / layout::kUpper).c_str(), p.id_base, p.id_base) != 0)
    return ErrnoError("chown the session's upper layer");
  TRY(journal.Append(step::SessionLayer{p.root_path}));
  return MountLayer(lower, store, p.root_path);
}

Result<SessionRecord> Sessions::Create(const std::string& id, const std::string& name, const bundle::SessionProfile& profile,
                                       const std::vector<std::string>& resolve, const std::string& from_snapshot) {
  TRY(ValidateId(id));
  if (!name.empty()) TRY_CTX(ValidateId(name), "--name");
  auto relay_policy = TRY(CheckEgressRules(profile));  // parsed once, passed along
  TRY(CheckSecrets(profile, relay_policy));
  bundle::SessionProfile p = profile;
  // Host paths resolved once (bind_sources.h: "/" and links into system directories refused).
  p.workspace = TRY(ResolveSource(p.workspace, "--workspace"));
  if (!std::filesystem::is_directory(p.workspace)) return MakeError("--workspace " + profile.workspace + ": not a directory", ENOENT);
  p.rootfs = TRY(ResolveSource(p.rootfs, "--rootfs"));
  if (!std::filesystem::is_directory(p.rootfs)) return MakeError("--rootfs " + profile.rootfs + ": not a directory", ENOENT);
  // Bind sources: canonical and pinned by identity now, re-checked at every start.
  json::array pins{TRY(PinSource(p.workspace))};
  for (auto& m : p.mounts) {
    auto pin = TRY_CTX(PinSource(m.source), "--mount");
    m.source = std::string(pin["path"].get_string());
    pins.push_back(std::move(pin));
  }
  auto dir = Dir(id);
  NetworkPaths net_paths(dir);
  if (p.network == "proxy") p.netns_path = net_paths.netns.string();
  PlanSecrets(p, dir);  // placeholders in, the CA's bundle mounted: docs/SECRETS.md
  // Which backend, and (native) sandshim re-executed from a sealed copy, before anything exists.
  bool member = !p.shared_ws_parent.empty();  // a pool member's request; the path is ours (below)
  // A restore keeps its source's mounts (#35): a member restored from a snapshot has the
  // plain layout of the session the snapshot was made from, and no shared parent.
  bool want_shared_ws = member && from_snapshot.empty();
  p.shared_ws_parent.clear();
  auto choice = TRY(containers_.Choose(TRY(bundle::SpecFromJson(TRY(bundle::SessionSpec(p))))));
  runtime::EnsureSealedFor(choice.traits);
  // After the re-execution above (which would find an fd source already read), before anything exists.
  auto secrets = TRY(ReadSecretValues(p.secret_sources));
  auto layer = LayerKind::kNone;
  p.limit_memory_inside = choice.traits.memory_limited_inside;
  if (p.writable_layer) {
    layer = ParseLayerKind(choice.traits.writable_layer).value_or(LayerKind::kNone);
    if (layer == LayerKind::kOverlayfs) p.root_path = (dir / layout::kRootfs).string();
  }

  auto lock = TRY(store_.Lock(id, runtime::LockMode::kCreate));
  if (fs::Exists(dir / layout::kRecord)) return MakeError("session " + id + " already exists", EEXIST);
  if (fs::Exists(dir / layout::kJournal)) TRY_CTX(Teardown(id), "session " + id + ": clearing a half-made create");
  TRY(fs::MkdirAll(dir, 0700));  // the spec below holds --env values; the layer the live root
  SessionJournal journal(dir / layout::kJournal);
  bool done = false;
  ScopeExit rollback([&] {
    if (done) return;
    if (auto s = Teardown(id); !s) log::Warn("session " + id + ": rollback: " + s.error().msg);
  });
  fault::Point("session.create.after-dir");
  if (!name.empty()) {
    TRY(fs::MkdirAll(NameLink(name).parent_path(), 0700));
    TRY(journal.Append(step::SessionName{.path = NameLink(name).string(), .id = id}));
    if (::symlink(id.c_str(), NameLink(name).c_str()) != 0)
      return errno == EEXIST ? MakeError("session name " + name + " is taken", EEXIST) : ErrnoError("name " + name);
  }
  TRY(fs::MkdirAll(dir / layout::kBundle, layout::kBundle.mode));
  TRY(fs::WriteFileAtomic(dir / layout::kLastUsed, "", layout::kLastUsed.mode, /*sync=*/false));  // its mtime: see MarkUsed
  TRY(fs::WriteFileAtomic(dir / layout::kSources, json::serialize(pins), layout::kSources.mode));
  TRY(WriteSecretFiles(dir, p, id));
  TRY(WriteExecPolicy(dir, p));  // #19: judged at every exec
  if (!member) TRY(GuardWorkspace(journal, GuardRegistry(opts_.root), p.workspace, id));  // a member's: at its claim
  // M11: a user namespace of its own where the kernel and filesystems allow idmapped mounts,
  // whatever the network: a proxy netns is joined before the userns is made (ns_order.h), and
  // a host or proxy netns stays the host userns's, so root inside has no CAP_NET_ADMIN there
  // (its /sys is then the host's, read-only: mounts.cc SysfsFallback).
  std::filesystem::path lower = p.rootfs;
  if (choice.traits.idmapped_sessions) {
    if (auto base = SetUpIdmap(journal, id, p)) {
      p.id_base = *base;
      lower = dir / layout::kBaseId;
    } else {
      log::Warn("session " + id + ": no user namespace of its own (" + base.error().msg + "): its processes use host ids");
    }
  }
  if (layer == LayerKind::kOverlayfs) {
    TRY(MountNativeLayer(journal, dir / layout::kLayer, lower, p));
  } else if (p.id_base) {
    p.root_path = lower.string();
  } else if (choice.backend == "gvisor") {
    // runsc's gofer makes every mount destination the rootfs lacks (--mount targets, a pool
    // member's /.sshim-ws) on the host, in the directory it is given: never the shared base
    // (N5). A host overlay takes those; the sandbox's own writes stay in runsc's overlay.
    p.root_path = (dir / layout::kRootfs).string();
    TRY(journal.Append(step::SessionLayer{p.root_path}));
    TRY(MountLayer(lower, dir / layout::kMountpoints, p.root_path));
  }
  // A pool member on gVisor (docs/POOL.md): P = <dir>/wsroot, a shared bind mount of itself
  // before the sandbox boots (journaled first, undone with umount2(MNT_DETACH), which takes a
  // claim's bind below it along), so a bind made below it later shows inside. The gofer's copy
  // is a slave: nothing mounted in the sandbox comes back.
  if (want_shared_ws && choice.traits.late_binds_need_shared_parent) p.shared_ws_parent = (dir / layout::kWsroot).string();
  if (!p.shared_ws_parent.empty()) {
    std::filesystem::path wsroot = p.shared_ws_parent;
    if (::mkdir(wsroot.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoError("mkdir " + wsroot.string());
    TRY(journal.Append(step::SessionLayer{wsroot.string()}));
    if (::mount(wsroot.c_str(), wsroot.c_str(), nullptr, MS_BIND, nullptr) != 0) return ErrnoError("bind " + wsroot.string());
    if (::mount(nullptr, wsroot.c_str(), nullptr, MS_SHARED, nullptr) != 0) return ErrnoError("make-shared " + wsroot.string());
  }
  // #35: a workspace someone else owns, seen as the session user's (workspace_owner.h); a
  // pool member gets its workspace at the claim.
  if (!p.id_base && p.shared_ws_parent.empty())
    TRY(BindWorkspaceAsUser(journal, dir, p, 0, UINT32_MAX, /*same_owner_too=*/false));
  auto spec_json = TRY(bundle::SessionSpec(p));
  TRY(AddPolicyEnforcement(spec_json, p, dir));  // #33: deny rules as mounts and at execve
  spec_json["annotations"].as_object()[runtime::kBackendAnnotation] = choice.backend;
  TRY(fs::WriteFileAtomic(dir / layout::kBundleConfig, json::serialize(spec_json), layout::kBundleConfig.mode));  // --env values
  SessionRecord r;
  r.id = id;
  r.name = name;
  r.container_id = "sess-" + id;
  r.backend = choice.backend;
  r.workspace = p.workspace;
  r.rootfs = p.rootfs;
  r.layer = layer;
  r.id_base = p.id_base;
  r.audit = (opts_.config.audit_dir / (id + ".jsonl")).string();
  r.profile = bundle::ProfileSummary(p);
  r.profile["backend_reason"] = choice.reason;
  auto network = ParseNetworkMode(p.network);
  if (!network) return MakeError("unknown network mode \"" + p.network + "\"", EINVAL);
  r.network = *network;
  r.created = r.last_used = log::NowRfc3339();
  if (p.network == "proxy") {
    TRY(fs::MkdirAll(std::filesystem::path(r.audit).parent_path(), 0700));
    r.relay_args = RelayProxyArgs(p, relay_policy, net_paths, id, r.audit, resolve);
    std::ranges::copy(ContextPathArgs(r.backend), std::back_inserter(r.relay_args));
    if (!p.secrets.empty()) std::ranges::copy(SecretRelayArgs(dir, p.secret_trust_bundle), std::back_inserter(r.relay_args));
    TRY(SetUpProxyNetwork(journal, net_paths, relay_policy, r.relay_args));
    TRY(DeliverSecrets(dir, secrets));  // before the sandbox exists: its first request finds them
    if (!p.secrets.empty()) fault::Point("session.create.after-secrets");
  }
  TRY(journal.Append(step::SessionContainer{r.container_id}));
  fault::Point("session.create.after-journal");
  TRY_CTX(RunContainer(r, TRY(ForkImage(from_snapshot))), "session " + id);
  if (p.network == "proxy") TRY_CTX(ChargeRelayToSession(r), "session " + id + ": charge the relay to the session");
  fault::Point("session.create.after-container");
  TRY(Save(r));
  done = true;
  if (p.network == "host") log::Warn("session " + id + " shares the host's network: nothing limits where it connects");
  if (choice.fallback) log::Warn("session " + id + " runs on the native backend: " + choice.reason);
  (void)AppendAudit(r.audit, "create",
                    {{"session", id}, {"name", name}, {"backend", r.backend}, {"workspace", r.workspace},
                     {"rootfs", r.rootfs}, {"profile", r.profile}});
  r.status = "running";
  return r;
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
