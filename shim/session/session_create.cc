// Sessions::Create as one sandbox assembly (store/assembly.h): the plan is decided before
// anything exists (checks, pinned sources, the backend and its re-execution), then, under the
// session's lock, the steps below run in order, each journaling what it makes before making
// it through the host seam (store/host.h). A step that fails leaves the rollback the journal
// to replay. Adopt is the one writer of a session's record and name link: the create's last
// step, and the end of a pool claim (pool/pool_claim.cc).
#include <fcntl.h>
#include <sys/mount.h>

#include "bundle/session_profile.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/scope_exit.h"
#include "shim/session/egress/network.h"
#include "shim/session/egress/secrets.h"
#include "shim/session/exec/exec_guard.h"
#include "shim/session/exec/exec_policy.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/sessions.h"
#include "shim/session/store/assembly.h"
#include "shim/session/store/audit.h"
#include "shim/session/store/host.h"
#include "shim/session/store/layout.h"
#include "shim/session/workspace/bind_sources.h"
#include "shim/session/workspace/layer.h"
#include "shim/session/workspace/workspace_guard.h"
#include "shim/session/workspace/workspace_owner.h"

namespace sandshim::session {
namespace json = boost::json;

// What a create decided before it made anything, and what its steps hand on.
struct Sessions::CreatePlan {
  Sessions& self;
  std::string id, name;
  bundle::SessionProfile p;
  std::vector<std::string> resolve;
  std::string from_snapshot;
  RelayPolicy relay_policy;
  json::array pins;
  runtime::BackendChoice choice;
  SecretValues secrets;
  LayerKind layer = LayerKind::kNone;
  bool member = false, want_shared_ws = false;
  std::filesystem::path dir, lower;
  SessionJournal* journal = nullptr;
  SessionRecord r;

  Status Decide(const bundle::SessionProfile& profile);
  static const std::vector<AssemblyStep<CreatePlan>>& Steps();
  // The steps, in the order Steps() lists them.
  static Status Name(CreatePlan& c);
  static Status Files(CreatePlan& c);
  static Status GuardTheWorkspace(CreatePlan& c);
  static Status IdRange(CreatePlan& c);
  static Status RootLayer(CreatePlan& c);
  static Status SharedWorkspaceParent(CreatePlan& c);
  static Status WorkspaceAsUser(CreatePlan& c);
  static Status Spec(CreatePlan& c);
  static Status Record(CreatePlan& c);
  static Status ProxyNetwork(CreatePlan& c);
  static Status Container(CreatePlan& c);
  static Status Commit(CreatePlan& c);
};

const std::vector<AssemblyStep<Sessions::CreatePlan>>& Sessions::CreatePlan::Steps() {
  static const std::vector<AssemblyStep<CreatePlan>> steps = {
      {"name", Name},                 // @names/<name> -> id, journaled first
      {"files", Files},               // bundle/, last-used, sources.json, secrets, policy.json
      {"workspace-guard", GuardTheWorkspace},  // nosuid over the workspace (not a pool member's)
      {"id-range", IdRange},          // a user namespace of its own, where the backend can
      {"root-layer", RootLayer},      // native overlay on a tmpfs, or gVisor's host overlay
      {"shared-workspace-parent", SharedWorkspaceParent},  // a gVisor pool member's wsroot
      {"workspace-as-user", WorkspaceAsUser},  // someone else's workspace seen as the user's
      {"spec", Spec},                 // bundle/config.json
      {"record", Record},             // the session record (not yet written)
      {"proxy-network", ProxyNetwork},  // netns, relay, secrets delivered
      {"container", Container},       // the sandbox, and the relay charged to it
      {"commit", Commit},             // session.json: the session exists
  };
  return steps;
}

// Everything checked and chosen before anything exists (bad input leaves nothing behind).
Status Sessions::CreatePlan::Decide(const bundle::SessionProfile& profile) {
  TRY(ValidateId(id));
  if (!name.empty()) TRY_CTX(ValidateId(name), "--name");
  relay_policy = TRY(CheckEgressRules(profile));  // parsed once, passed along
  TRY(CheckSecrets(profile, relay_policy));
  p = profile;
  // Host paths resolved once (bind_sources.h: "/" and links into system directories refused).
  p.workspace = TRY(ResolveSource(p.workspace, "--workspace"));
  if (!std::filesystem::is_directory(p.workspace)) return MakeError("--workspace " + profile.workspace + ": not a directory", ENOENT);
  p.rootfs = TRY(ResolveSource(p.rootfs, "--rootfs"));
  if (!std::filesystem::is_directory(p.rootfs)) return MakeError("--rootfs " + profile.rootfs + ": not a directory", ENOENT);
  // Bind sources: canonical and pinned by identity now, re-checked at every start.
  pins = json::array{TRY(PinSource(p.workspace))};
  for (auto& m : p.mounts) {
    auto pin = TRY_CTX(PinSource(m.source), "--mount");
    m.source = std::string(pin["path"].get_string());
    pins.push_back(std::move(pin));
  }
  dir = self.Dir(id);
  if (p.network == "proxy") p.netns_path = NetworkPaths(dir).netns.string();
  PlanSecrets(p, dir);  // placeholders in, the CA's bundle mounted: docs/SECRETS.md
  // Which backend, and (native) sandshim re-executed from a sealed copy, before anything exists.
  member = !p.shared_ws_parent.empty();  // a pool member's request; the path is ours (below)
  // A restore keeps its source's mounts (#35): a member restored from a snapshot has the
  // plain layout of the session the snapshot was made from, and no shared parent.
  want_shared_ws = member && from_snapshot.empty();
  p.shared_ws_parent.clear();
  choice = TRY(self.containers_.Choose(TRY(bundle::SpecFromJson(TRY(bundle::SessionSpec(p))))));
  runtime::EnsureSealedFor(choice.traits);
  // After the re-execution above (which would find an fd source already read), before anything exists.
  secrets = TRY(ReadSecretValues(p.secret_sources));
  p.limit_memory_inside = choice.traits.memory_limited_inside;
  if (p.writable_layer) {
    layer = ParseLayerKind(choice.traits.writable_layer).value_or(LayerKind::kNone);
    if (layer == LayerKind::kOverlayfs) p.root_path = (dir / layout::kRootfs).string();
  }
  lower = p.rootfs;
  return Ok();
}

Result<SessionRecord> Sessions::Create(const std::string& id, const std::string& name, const bundle::SessionProfile& profile,
                                       const std::vector<std::string>& resolve, const std::string& from_snapshot) {
  CreatePlan c{.self = *this, .id = id, .name = name, .resolve = resolve, .from_snapshot = from_snapshot};
  TRY(c.Decide(profile));
  auto lock = TRY(store_.Lock(id, runtime::LockMode::kCreate));
  if (fs::Exists(c.dir / layout::kRecord)) return MakeError("session " + id + " already exists", EEXIST);
  if (fs::Exists(c.dir / layout::kJournal)) TRY_CTX(Teardown(id), "session " + id + ": clearing a half-made create");
  TRY(fs::MkdirAll(c.dir, 0700));  // the spec below holds --env values; the layer the live root
  SessionJournal journal(c.dir / layout::kJournal);
  c.journal = &journal;
  bool done = false;
  ScopeExit rollback([&] {
    if (done) return;
    if (auto s = Teardown(id); !s) log::Warn("session " + id + ": rollback: " + s.error().msg);
  });
  fault::Point("session.create.after-dir");
  TRY(Assemble<CreatePlan>(CreatePlan::Steps(), c, create_trace_));
  done = true;
  auto& r = c.r;
  if (c.p.network == "host") log::Warn("session " + id + " shares the host's network: nothing limits where it connects");
  if (c.choice.fallback) log::Warn("session " + id + " runs on the native backend: " + c.choice.reason);
  (void)AppendAudit(r.audit, "create",
                    {{"session", id}, {"name", name}, {"backend", r.backend}, {"workspace", r.workspace},
                     {"rootfs", r.rootfs}, {"profile", r.profile}});
  r.status = "running";
  return r;
}

Status Sessions::CreatePlan::Name(CreatePlan& c) {
  return c.name.empty() ? Ok() : c.self.LinkName(*c.journal, c.id, c.name);
}

Status Sessions::CreatePlan::Files(CreatePlan& c) {
  TRY(fs::MkdirAll(c.dir / layout::kBundle, layout::kBundle.mode));
  TRY(fs::WriteFileAtomic(c.dir / layout::kLastUsed, "", layout::kLastUsed.mode, /*sync=*/false));  // its mtime: see MarkUsed
  TRY(fs::WriteFileAtomic(c.dir / layout::kSources, json::serialize(c.pins), layout::kSources.mode));
  TRY(WriteSecretFiles(c.dir, c.p, c.id));
  return WriteExecPolicy(c.dir, c.p);  // #19: judged at every exec
}

Status Sessions::CreatePlan::GuardTheWorkspace(CreatePlan& c) {
  if (c.member) return Ok();  // a member's: at its claim
  return GuardWorkspace(*c.journal, c.self.opts_.config.workspace_guards, c.p.workspace,
                        GuardHolder(c.self.opts_.root, c.id), c.self.sys_);
}

// M11: a user namespace of its own where the kernel and filesystems allow idmapped mounts,
// whatever the network: a proxy netns is joined before the userns is made (ns_order.h), and
// a host or proxy netns stays the host userns's, so root inside has no CAP_NET_ADMIN there
// (its /sys is then the host's, read-only: mounts.cc SysfsFallback).
Status Sessions::CreatePlan::IdRange(CreatePlan& c) {
  if (!c.choice.traits.idmapped_sessions) return Ok();
  if (auto base = c.self.SetUpIdmap(*c.journal, c.id, c.p)) {
    c.p.id_base = *base;
    c.lower = c.dir / layout::kBaseId;
  } else {
    log::Warn("session " + c.id + ": no user namespace of its own (" + base.error().msg + "): its processes use host ids");
  }
  return Ok();
}

// A native session's writable layer: an overlay whose upper layer is on a tmpfs of its own,
// half the session's memory in size and charged to its memory cgroup as it is written, so a
// tenant's writes fill neither the state root's disk (which need not be a tmpfs: a red team
// wrote 300 MB past --memory 128m onto the host's disk) nor more than the session may hold.
static Status MountNativeLayer(native::Sys& sys, SessionJournal& journal, const std::filesystem::path& store,
                               const std::filesystem::path& lower, const bundle::SessionProfile& p) {
  TRY(fs::MkdirAll(store, 0700));
  TRY(journal.Append(step::SessionLayer{store.string()}));
  // Half: a full layer still leaves the session's processes room to run (and to clean up).
  int64_t bytes = (p.memory_bytes > 0 ? p.memory_bytes : bundle::kDefaultSessionMemoryBackstop) / 2;
  std::string opts = "mode=0755,size=" + std::to_string(bytes);
  if (sys.Mount("sandshim-layer-store", store.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return ErrnoError("mount the session's layer store at " + store.string());
  TRY(fs::MkdirAll(store / layout::kUpper, layout::kUpper.mode));
  // The merged root takes its owner from the upper directory: the session's root.
  if (p.id_base && sys.Fchownat(AT_FDCWD, (store / layout::kUpper).c_str(), p.id_base, p.id_base, 0) != 0)
    return ErrnoError("chown the session's upper layer");
  TRY(journal.Append(step::SessionLayer{p.root_path}));
  return MountLayer(lower, store, p.root_path, sys);
}

Status Sessions::CreatePlan::RootLayer(CreatePlan& c) {
  auto& p = c.p;
  if (c.layer == LayerKind::kOverlayfs) return MountNativeLayer(c.self.sys_, *c.journal, c.dir / layout::kLayer, c.lower, p);
  if (p.id_base) {
    p.root_path = c.lower.string();
  } else if (c.choice.backend == "gvisor") {
    // runsc's gofer makes every mount destination the rootfs lacks (--mount targets, a pool
    // member's /.sshim-ws) on the host, in the directory it is given: never the shared base
    // (N5). A host overlay takes those; the sandbox's own writes stay in runsc's overlay.
    p.root_path = (c.dir / layout::kRootfs).string();
    TRY(c.journal->Append(step::SessionLayer{p.root_path}));
    TRY(MountLayer(c.lower, c.dir / layout::kMountpoints, p.root_path, c.self.sys_));
  }
  return Ok();
}

// A pool member on gVisor (docs/POOL.md): P = <dir>/wsroot, a shared bind mount of itself
// before the sandbox boots (journaled first, undone with umount2(MNT_DETACH), which takes a
// claim's bind below it along), so a bind made below it later shows inside. The gofer's copy
// is a slave: nothing mounted in the sandbox comes back.
Status Sessions::CreatePlan::SharedWorkspaceParent(CreatePlan& c) {
  if (!c.want_shared_ws || !c.choice.traits.late_binds_need_shared_parent) return Ok();
  std::filesystem::path wsroot = c.dir / layout::kWsroot;
  c.p.shared_ws_parent = wsroot.string();
  auto& sys = c.self.sys_;
  TRY(HostMkdir(sys, wsroot, 0755));
  TRY(c.journal->Append(step::SessionLayer{wsroot.string()}));
  if (sys.Mount(wsroot.c_str(), wsroot.c_str(), nullptr, MS_BIND, nullptr) != 0) return ErrnoError("bind " + wsroot.string());
  if (sys.Mount(nullptr, wsroot.c_str(), nullptr, MS_SHARED, nullptr) != 0) return ErrnoError("make-shared " + wsroot.string());
  return Ok();
}

// #35: a workspace someone else owns, seen as the session user's (workspace_owner.h); a
// pool member gets its workspace at the claim.
Status Sessions::CreatePlan::WorkspaceAsUser(CreatePlan& c) {
  if (c.p.id_base || !c.p.shared_ws_parent.empty()) return Ok();
  return BindWorkspaceAsUser(*c.journal, c.dir, c.p, 0, UINT32_MAX, /*same_owner_too=*/false);
}

Status Sessions::CreatePlan::Spec(CreatePlan& c) {
  auto spec_json = TRY(bundle::SessionSpec(c.p));
  TRY(AddPolicyEnforcement(spec_json, c.p, c.dir));  // #33: deny rules as mounts and at execve
  spec_json["annotations"].as_object()[runtime::kBackendAnnotation] = c.choice.backend;
  return fs::WriteFileAtomic(c.dir / layout::kBundleConfig, json::serialize(spec_json), layout::kBundleConfig.mode);  // --env values
}

Status Sessions::CreatePlan::Record(CreatePlan& c) {
  auto& r = c.r;
  const auto& p = c.p;
  r.id = c.id;
  r.name = c.name;
  r.container_id = "sess-" + c.id;
  r.backend = c.choice.backend;
  r.workspace = p.workspace;
  r.rootfs = p.rootfs;
  r.layer = c.layer;
  r.id_base = p.id_base;
  r.audit = (c.self.opts_.config.audit_dir / (c.id + ".jsonl")).string();
  r.profile = bundle::ProfileSummary(p);
  r.profile["backend_reason"] = c.choice.reason;
  auto network = ParseNetworkMode(p.network);
  if (!network) return MakeError("unknown network mode \"" + p.network + "\"", EINVAL);
  r.network = *network;
  r.created = r.last_used = log::NowRfc3339();
  return Ok();
}

Status Sessions::CreatePlan::ProxyNetwork(CreatePlan& c) {
  if (c.p.network != "proxy") return Ok();
  auto& r = c.r;
  NetworkPaths net_paths(c.dir);
  TRY(fs::MkdirAll(std::filesystem::path(r.audit).parent_path(), 0700));
  r.relay_args = RelayProxyArgs(c.p, c.relay_policy, net_paths, c.id, r.audit, c.resolve);
  std::ranges::copy(ContextPathArgs(r.backend), std::back_inserter(r.relay_args));
  if (!c.p.secrets.empty()) std::ranges::copy(SecretRelayArgs(c.dir, c.p.secret_trust_bundle), std::back_inserter(r.relay_args));
  TRY(SetUpProxyNetwork(*c.journal, net_paths, c.relay_policy, r.relay_args));
  TRY(DeliverSecrets(c.dir, c.secrets));  // before the sandbox exists: its first request finds them
  if (!c.p.secrets.empty()) fault::Point("session.create.after-secrets");
  return Ok();
}

Status Sessions::CreatePlan::Container(CreatePlan& c) {
  auto& r = c.r;
  TRY(c.journal->Append(step::SessionContainer{r.container_id}));
  fault::Point("session.create.after-journal");
  TRY_CTX(c.self.RunContainer(r, TRY(c.self.ForkImage(c.from_snapshot))), "session " + c.id);
  if (c.p.network == "proxy") TRY_CTX(c.self.ChargeRelayToSession(r), "session " + c.id + ": charge the relay to the session");
  fault::Point("session.create.after-container");
  return Ok();
}

Status Sessions::CreatePlan::Commit(CreatePlan& c) { return c.self.Save(c.r); }

Status Sessions::LinkName(SessionJournal& journal, const std::string& id, const std::string& name) {
  auto link = NameLink(name);
  TRY(fs::MkdirAll(link.parent_path(), 0700));
  TRY(journal.Append(step::SessionName{.path = link.string(), .id = id}));
  if (sys_.Symlinkat(id.c_str(), AT_FDCWD, link.c_str()) != 0)
    return errno == EEXIST ? MakeError("session name " + name + " is taken", EEXIST) : ErrnoError("name " + name);
  return Ok();
}

Status Sessions::Adopt(SessionJournal& journal, const SessionRecord& r) {
  if (!r.name.empty()) TRY(LinkName(journal, r.id, r.name));
  // A claim is Adopt's one caller: the crash point keeps the name the pool suite kills at.
  fault::Point("pool.claim.before-record");
  return Save(r);
}

}  // namespace sandshim::session
