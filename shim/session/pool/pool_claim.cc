// Pool::Claim: a ready member becomes the caller's session. The order is the crash story:
//   1 claims/<member>.json (the intent, durable) under the pool lock: the member is taken
//   2 its relay stopped (proxy pools)
//   3 its journal, spec and pins rebased to the session's paths; session.json set aside,
//     so until step 7 the moved directory reads as a half-made session
//   4 its workspace renamed to the session's    5 its directory renamed to @sessions/<id>
//   6 the name (journaled first), the session's relay    7 session.json: the commit
// Gc finds an intent whose session has no record and undoes it (RecoverClaim), wherever the
// directory is: a journal still naming the member's paths is replayed in place, a rebased one
// after the directory is moved (mounts follow the rename, recorded paths do not).
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/spec.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/remove_tree.h"
#include "shim/session/store/session_steps.h"
#include "shim/runtime/record_rebase.h"
#include "shim/session/store/assembly.h"
#include "shim/session/store/audit.h"
#include "shim/session/store/host.h"
#include "shim/session/workspace/bind_sources.h"
#include "shim/session/exec/exec_policy.h"
#include "shim/session/pool/pool.h"
#include "shim/session/pool/pool_egress.h"
#include "shim/session/pool/pool_lock.h"
#include "shim/session/store/record.h"
#include "shim/session/workspace/workspace_guard.h"
#include "shim/session/store/layout.h"
#include "shim/session/pool/member_rebase.h"

namespace sandshim::session {
namespace json = boost::json;

namespace {

struct Intent {
  std::string session, member_dir, session_dir, workspace_from, workspace_to;
  bool existing = false;  // workspace_to is the caller's directory: never removed
};

json::object IntentJson(const Intent& i) {
  return {{"session", i.session}, {"member_dir", i.member_dir}, {"session_dir", i.session_dir},
          {"workspace_from", i.workspace_from}, {"workspace_to", i.workspace_to}, {"existing", i.existing}};
}

Result<Intent> ReadIntent(const std::filesystem::path& file) {
  auto v = TRY(bundle::ParseJson(TRY(fs::ReadFile(file)), file.string()));
  if (!v.is_object()) return MakeError(file.string() + ": not an object", EINVAL);
  const auto& o = v.as_object();
  const auto* existing = o.if_contains("existing");
  return Intent{bundle::GetString(o, "session"), bundle::GetString(o, "member_dir"), bundle::GetString(o, "session_dir"),
                bundle::GetString(o, "workspace_from"), bundle::GetString(o, "workspace_to"),
                existing && existing->is_bool() && existing->as_bool()};
}

// The member was made with a shared workspace parent (gVisor; its marker says so).
bool MemberShared(const PoolPaths& p, const std::string& member) {
  auto marker = fs::ReadFile(p.members / member / layout::kMemberMarker);
  return marker && marker->find("\"shared_ws\":true") != std::string::npos;
}

// pid (a member's sandbox) and each of its threads is running or sleeping, not stopped (T)
// or traced (t): what SIGSTOP from another process of the same uid leaves.
Status CheckNotStopped(pid_t pid) {
  if (pid <= 0) return MakeError("its sandbox has no process", ESRCH);
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    auto stat = fs::ReadFile(t.path() / "stat").value_or("");
    auto close = stat.rfind(')');
    char state = close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
    if (state == 'T' || state == 't') return MakeError("its sandbox is stopped (SIGSTOP)", ESRCH);
  }
  if (ec) return MakeError("its sandbox is gone", ESRCH);
  return Ok();
}

// An existing workspace, opened safely: a directory reached without following a link in its
// last component, not inside the state root (the sandbox would see sandshim's own state).
// (A new workspace, the member's own renamed, may be below the state root: the default
// workspace_parent is; check_root is false for it.)
Result<UniqueFd> OpenExistingWorkspace(const std::filesystem::path& dir, const std::filesystem::path& state_root,
                                       bool check_root = true) {
  int fd = ::open(dir.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("--workspace " + dir.string() + " (a directory, not a symlink)");
  UniqueFd out(fd);
  if (!check_root) return out;
  char buf[PATH_MAX];
  auto proc = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(proc.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return ErrnoError("resolve --workspace " + dir.string());
  std::string real(buf, static_cast<size_t>(n));
  std::error_code ec;
  std::string root = std::filesystem::weakly_canonical(state_root, ec).string();
  if (ec || root.empty()) return MakeError("resolve the state root " + state_root.string(), EINVAL);
  if (real == root || real.starts_with(root + "/") || root.starts_with(real + "/") || real == "/")
    return MakeError("--workspace " + dir.string() + " overlaps the state root " + root, EPERM);
  return out;
}

// The claim's workspace: a new path on the pool's filesystem, or (gVisor pools) an existing
// directory bound below the member's shared parent; nullopt: a miss.
Result<std::optional<std::string>> WorkspaceTarget(const PoolDef& d, const ClaimRequest& req, const std::filesystem::path& root,
                                                   bool* existing, std::string* why) {
  std::filesystem::path to = req.workspace.empty() ? d.workspace_parent / req.id : std::filesystem::path(req.workspace);
  if (!to.is_absolute()) to = std::filesystem::absolute(to);
  to = to.lexically_normal();
  if (to.has_filename() == false) to = to.parent_path();
  struct stat st, pool_st;
  if (::lstat(to.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      *why = "existing workspace " + to.string() + " is not a directory (a symlink is served cold)";
      return std::optional<std::string>();
    }
    TRY(OpenExistingWorkspace(to, root));
    *existing = true;
    return std::optional<std::string>(to.string());
  }
  if (::stat(to.parent_path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return MakeError("--workspace " + to.string() + ": its parent is not a directory", ENOENT);
  if (::stat(d.workspace_parent.c_str(), &pool_st) != 0 || pool_st.st_dev != st.st_dev) {
    *why = "workspace " + to.string() + " is not on the pool's filesystem (" + d.workspace_parent.string() + ")";
    return std::optional<std::string>();
  }
  return std::optional<std::string>(to.string());
}

// The claim's command policy (#19), checked as a create checks it (against the pool's network
// and workspace destination): bad input is an error before anything moves, and sources' hosts
// join the claim's egress rules. The returned profile carries what WriteExecPolicy writes.
Result<bundle::SessionProfile> ClaimPolicy(const PoolDef& d, ClaimRequest& req) {
  bundle::SessionProfile p;
  if (const auto* n = d.profile.if_contains("network"); n && n->is_string()) p.network = n->as_string().c_str();
  if (const auto* w = d.profile.if_contains("workspace_dest"); w && w->is_string()) p.workspace_dest = w->as_string().c_str();
  p.command_policy_json = req.command_policy_json;
  p.sources_json = req.sources_json;
  TRY(ApplyCommandPolicy(p));
  req.allow_domains.insert(req.allow_domains.end(), p.allow_domains.begin(), p.allow_domains.end());
  req.deny_domains.insert(req.deny_domains.end(), p.deny_domains.begin(), p.deny_domains.end());
  return p;
}

}  // namespace

Result<ClaimOutcome> Pool::Claim(const ClaimRequest& asked) {
  ClaimRequest req = asked;
  TRY(ValidateId(req.id));
  if (!req.name.empty()) TRY_CTX(ValidateId(req.name), "--name");
  auto d = TRY(Load());
  auto sessions_dir = RootLayout(opts_.root).sessions();
  if (fs::Exists(sessions_dir / req.id / layout::kRecord)) return MakeError("session " + req.id + " already exists", EEXIST);
  if (!req.name.empty() && fs::Exists(RootLayout(opts_.root).names() / req.name))
    return MakeError("session name " + req.name + " is taken", EEXIST);
  auto policy = TRY(ClaimPolicy(d, req));
  // An existing workspace is resolved by the rule a create applies (bind_sources.h): refused
  // here is refused, not a miss that a cold create would then judge on its own (N7).
  if (!req.workspace.empty() && fs::Exists(req.workspace)) req.workspace = TRY(ResolveSource(req.workspace, "--workspace"));
  ClaimOutcome out;
  if (!req.secrets.empty()) {
    out.miss.reason = "secrets need the session CA in the sandbox from boot (a cold create)";
    return out;
  }
  bool existing = false;
  auto ws = TRY(WorkspaceTarget(d, req, opts_.root, &existing, &out.miss.reason));
  if (!ws) return out;
  TRY(fs::MkdirAll(paths_.claims, 0700));
  // As the session store makes it: traversable, so a restarted native session's init (its
  // own host ids) reaches its rootfs below it.
  TRY(fs::MkdirAll(sessions_dir, 0711));
  std::string member;
  UniqueFd member_lock;
  uint32_t left = 0;
  {
    auto lock = TRY(LockFile(paths_.lock));
    auto ready = ReadyMembers(d, nullptr);
    for (size_t i = 0; i < ready.size() && member.empty(); ++i) {
      // An existing workspace is bound below a shared parent: gVisor members only (native
      // sees its workspace idmapped, which such a bind does not give; docs/POOL.md).
      if (existing && !MemberShared(paths_, ready[i])) continue;
      // The member's own lock, held through the claim (it moves with the directory): gc
      // and drain leave a claim alone while it is held.
      auto l = TryLockFile(paths_.members / ready[i] / layout::kLock);
      if (!l || !*l) continue;
      member = ready[i];
      member_lock = std::move(**l);
      left = static_cast<uint32_t>(ready.size() - i - 1);
    }
    if (member.empty()) {
      out.miss.reason = !existing || ready.empty() ? "pool " + name_ + " is empty"
                        : !d.from_snapshot.empty()
                            ? "existing workspace " + *ws + " (a snapshot pool's members keep their source's layout: restored on its own)"
                            : "existing workspace " + *ws + " (bound at claim time on gVisor pools only; native: served cold)";
      return out;
    }
    Intent intent{req.id, (paths_.members / member).string(), (sessions_dir / req.id).string(),
                  MemberWorkspace(d, member).string(), *ws, existing};
    TRY(fs::WriteFileAtomic(paths_.claims / (member + ".json"), json::serialize(IntentJson(intent)), 0600));
  }
  fault::Point("pool.claim.after-intent");
  out.member = member;
  auto claimed = ClaimMember(d, req, policy, member, *ws);
  if (!claimed) {
    // The member is spent either way (never reused): undo it, and let the caller go cold.
    member_lock = UniqueFd();
    if (auto s = RecoverClaim(member); !s) log::Warn("pool " + name_ + ": undo claim: " + s.error().msg);
    out.miss.reason = "claim of member " + member + " failed: " + claimed.error().msg;
    return out;
  }
  out.session = std::move(*claimed);
  member_lock = UniqueFd();  // the session's lock now; never held while waiting for the pool's
  {
    auto lock = TRY(LockFile(paths_.lock));
    auto s = ReadPoolStats(paths_.stats);
    s.claims++;
    (void)WritePoolStats(paths_.stats, s);
  }
  if (left < d.low_water) RefillInBackground();
  return out;
}

// A shared-parent member's claim (gVisor): the caller's workspace in the member's sandbox.
Status Pool::AttachSharedWorkspace(SessionJournal& journal, const std::filesystem::path& to, const std::string& workspace_to,
                                   bool existing, const std::string& dest) {
  // The workspace bound at <session>/wsroot/ws (the shared parent's child the member's
  // workspace_dest links to): journaled first, undone by umount2(MNT_DETACH) at delete/gc.
  auto fd = TRY(OpenExistingWorkspace(workspace_to, opts_.root, existing));
  auto at = to / layout::kWsrootWs;
  TRY(journal.Append(step::SessionLayer{at.string()}));
  TRY(HostMkdir(sys_, at, 0755));
  auto src = "/proc/self/fd/" + std::to_string(fd.get());
  if (sys_.Mount(src.c_str(), at.c_str(), nullptr, MS_BIND, nullptr) != 0) return ErrnoError("bind the workspace at " + at.string());
  fault::Point("pool.claim.after-bind");
  // What a restart boots: a plain session's spec (the workspace bound at its destination;
  // the memory overlay holding the symlink does not outlive the sandbox), and the workspace
  // pinned by its own identity.
  auto spec = TRY(bundle::ParseJson(TRY(fs::ReadFile(to / layout::kBundleConfig)), "spec"));
  if (auto* mounts = spec.as_object().if_contains("mounts"); mounts && mounts->is_array())
    for (auto& m : mounts->as_array())
      if (m.is_object() && bundle::GetString(m.as_object(), "destination") == bundle::kSharedWorkspaceMount) {
        m.as_object()["destination"] = dest;
        m.as_object()["source"] = workspace_to;
      }
  // The cwd is reached through the symlink: PWD names it as a cold session's shell shows it
  // (a shell's pwd prints $PWD when it is the cwd; getcwd(3) says /.sshim-ws/ws).
  if (auto* proc = spec.as_object().if_contains("process"); proc && proc->is_object()) {
    auto& env = (*proc).as_object()["env"];
    if (!env.is_array()) env = json::array();
    env.as_array().emplace_back("PWD=" + dest);
  }
  TRY(fs::WriteFileAtomic(to / layout::kBundleConfig, json::serialize(spec), layout::kBundleConfig.mode, /*sync=*/false));
  if (existing) {
    auto pins = TRY(bundle::ParseJson(TRY(fs::ReadFile(to / layout::kSources)), std::string(layout::kSources.rel)));
    if (pins.is_array() && !pins.as_array().empty()) pins.as_array()[0] = TRY(PinSource(workspace_to));
    TRY(fs::WriteFileAtomic(to / layout::kSources, json::serialize(pins), layout::kSources.mode, /*sync=*/false));
  }
  return Ok();
}

// A claim's plan (store/assembly.h): the intent and what the steps hand on.
struct Pool::ClaimPlan {
  Pool& self;
  const PoolDef& d;
  const ClaimRequest& req;
  const bundle::SessionProfile& policy;
  std::string member, workspace_to;
  Intent intent;
  std::filesystem::path from, to;
  SessionRecord r;
  bool shared = false;
  std::string dest = "/workspace";
  std::optional<SessionJournal> journal;

  static const std::vector<AssemblyStep<ClaimPlan>>& Steps();
  static Status Member(ClaimPlan& c);
  static Status ReleaseEgress(ClaimPlan& c);
  static Status Rebase(ClaimPlan& c);
  static Status Move(ClaimPlan& c);
  static Status GuardTheWorkspace(ClaimPlan& c);
  static Status SharedWorkspace(ClaimPlan& c);
  static Status Bind(ClaimPlan& c);
  static Status Adopt(ClaimPlan& c);
  static Status Tidy(ClaimPlan& c);
};

const std::vector<AssemblyStep<Pool::ClaimPlan>>& Pool::ClaimPlan::Steps() {
  static const std::vector<AssemblyStep<ClaimPlan>> steps = {
      {"member", Member},                 // its sandbox running and not stopped
      {"release-egress", ReleaseEgress},  // the member's relay stopped (proxy pools)
      {"rebase", Rebase},                 // recorded paths to the session's; session.json set aside
      {"move", Move},                     // workspace and directory renamed (RENAME_NOREPLACE)
      {"workspace-guard", GuardTheWorkspace},  // nosuid over the workspace, journaled
      {"shared-workspace", SharedWorkspace},   // gVisor: the workspace bound below wsroot
      {"bind", Bind},                     // id, environment, egress rules, command policy
      {"adopt", Adopt},                   // Sessions: the name link and session.json, the commit
      {"tidy", Tidy},                     // the member's marker, the intent, the audit line
  };
  return steps;
}

Result<SessionRecord> Pool::ClaimMember(const PoolDef& d, const ClaimRequest& req, const bundle::SessionProfile& policy,
                                        const std::string& member, const std::string& workspace_to) {
  ClaimPlan c{.self = *this, .d = d, .req = req, .policy = policy, .member = member, .workspace_to = workspace_to};
  TRY(Assemble<ClaimPlan>(ClaimPlan::Steps(), c, claim_trace_));
  c.r.status = "running";
  return c.r;
}

Status Pool::ClaimPlan::Member(ClaimPlan& c) {
  c.intent = TRY(ReadIntent(c.self.paths_.claims / (c.member + ".json")));
  c.from = c.intent.member_dir;
  c.to = c.intent.session_dir;
  c.r = TRY(c.self.members_.Get(c.member));
  if (c.r.status != "running") return MakeError("its sandbox is " + c.r.status, ESRCH);
  // Running is not answering: a member anyone SIGSTOPped (runsc runs every sandbox as host
  // nobody, whom runsc gives no other uid) would hang the tenant's first exec (review N2).
  return CheckNotStopped(TRY(runtime::StateStore(c.self.opts_.root).Load(c.r.container_id)).init.pid);
}

Status Pool::ClaimPlan::ReleaseEgress(ClaimPlan& c) {
  TRY_CTX(ReleaseMemberEgress(c.r, c.from), "release the member's relay");
  return Ok();
}

Status Pool::ClaimPlan::Rebase(ClaimPlan& c) {
  c.shared = MemberShared(c.self.paths_, c.member);
  if (const auto* w = c.d.profile.if_contains("workspace_dest"); w && w->is_string()) c.dest = w->as_string().c_str();
  const auto& i = c.intent;
  TRY(RebaseMemberFiles(c.from, {i.member_dir, i.session_dir, i.workspace_from, i.workspace_to}, c.req.env,
                        c.shared ? c.dest : ""));
  TRY(runtime::RebaseRecord(runtime::StateStore(c.self.opts_.root), c.r.container_id,
                            {{c.intent.member_dir, c.intent.session_dir}, {c.intent.workspace_from, c.workspace_to}}));
  if (c.self.sys_.Renameat2(AT_FDCWD, (c.from / layout::kRecord).c_str(), AT_FDCWD, (c.from / layout::kMemberRecord).c_str(), 0) != 0)
    return ErrnoError("set aside the member's record");
  fault::Point("pool.claim.after-rebase");
  return Ok();
}

Status Pool::ClaimPlan::Move(ClaimPlan& c) {
  if (!c.intent.existing) TRY(HostRenameNoReplace(c.self.sys_, c.intent.workspace_from, c.workspace_to));
  TRY(HostRenameNoReplace(c.self.sys_, c.from, c.to));
  fault::Point("pool.claim.after-rename");
  c.journal.emplace(TRY(SessionJournal::Load(c.to / layout::kJournal)));
  return Ok();
}

Status Pool::ClaimPlan::GuardTheWorkspace(ClaimPlan& c) {
  // nosuid (workspace_guard.h)
  return GuardWorkspace(*c.journal, c.self.opts_.config.workspace_guards, c.workspace_to,
                        GuardHolder(c.self.opts_.root, c.req.id), c.self.sys_);
}

Status Pool::ClaimPlan::SharedWorkspace(ClaimPlan& c) {
  if (c.shared) return c.self.AttachSharedWorkspace(*c.journal, c.to, c.workspace_to, c.intent.existing, c.dest);
  if (c.intent.existing) return MakeError("an existing workspace needs a member with a shared parent", EINVAL);
  return Ok();
}

Status Pool::ClaimPlan::Bind(ClaimPlan& c) {
  auto& r = c.r;
  const auto& req = c.req;
  r.id = req.id;
  r.name = req.name;
  r.workspace = c.workspace_to;
  r.audit = (c.self.opts_.config.audit_dir / (req.id + ".jsonl")).string();
  r.created = r.last_used = log::NowRfc3339();
  r.execs = r.exec_failures = r.exec_timeouts = 0;
  r.exec_seconds = 0;
  runtime::Containers containers(c.self.opts_);
  r.relay_args = TRY_CTX(BindClaimEgress(containers, c.self.paths_, r, c.to, req), "bind the session's egress");
  auto& keys = r.profile["env_keys"];
  if (!keys.is_array()) keys = json::array();
  for (const auto& [k, v] : req.env)
    if (std::find(keys.as_array().begin(), keys.as_array().end(), json::value(k)) == keys.as_array().end())
      keys.as_array().emplace_back(k);
  r.profile["pool"] = c.self.name_;
  r.profile["pool_member"] = c.member;
  if (!c.policy.command_policy_json.empty() || !c.policy.sources_json.empty()) TRY(WriteExecPolicy(c.to, c.policy));
  return Ok();
}

Status Pool::ClaimPlan::Adopt(ClaimPlan& c) { return Sessions(c.self.opts_).Adopt(*c.journal, c.r); }

Status Pool::ClaimPlan::Tidy(ClaimPlan& c) {
  auto& sys = c.self.sys_;
  (void)HostUnlink(sys, c.to / layout::kMemberRecord);
  (void)HostUnlink(sys, c.to / layout::kMemberMarker);
  (void)sys.Utimensat(AT_FDCWD, (c.to / layout::kLastUsed).c_str(), nullptr, 0);
  (void)HostUnlink(sys, c.self.paths_.claims / (c.member + ".json"));
  if (c.intent.existing) (void)fs::RemoveTree(c.intent.workspace_from);  // the member's own, unused (never mounted)
  json::array env_keys;
  for (const auto& [k, v] : c.req.env) env_keys.emplace_back(k);  // keys only: values may be secrets
  const auto& r = c.r;
  (void)AppendAudit(r.audit, "claim",
                    {{"session", r.id}, {"name", r.name}, {"backend", r.backend}, {"workspace", r.workspace},
                     {"pool", c.self.name_}, {"member", c.member}, {"generation", c.d.generation}, {"env_keys", env_keys}});
  return Ok();
}

Result<bool> ClaimCommitted(const std::filesystem::path& dir, const std::string& id) {
  auto text = fs::ReadFile(dir / layout::kRecord);
  if (!text) return false;
  auto rec = TRY_CTX(RecordFromJson(TRY(bundle::ParseJson(*text, (dir / layout::kRecord).string()))),
                     "claim recovery");
  return rec.id == id;
}

Result<bool> Pool::RecoverClaim(const std::string& member) {
  auto file = paths_.claims / (member + ".json");
  auto intent = TRY(ReadIntent(file));
  std::filesystem::path from = intent.member_dir, to = intent.session_dir;
  // A claim in progress holds the member's lock, wherever its directory is now.
  std::vector<UniqueFd> held;
  for (const auto& dir : {from, to}) {
    if (!fs::Exists(dir / layout::kLock)) continue;
    auto l = TryLockFile(dir / layout::kLock);
    if (l && !*l) return false;
    if (l) held.push_back(std::move(**l));
  }
  if (TRY(ClaimCommitted(to, intent.session))) {
    ::unlink(file.c_str());
    return true;
  }
  // Where the journal's paths point is where the teardown must run from.
  if (fs::Exists(from)) {
    auto journal = fs::ReadFile(from / layout::kJournal);
    bool rebased = journal && journal->find(to.string()) != std::string::npos;
    if (rebased) TRY(HostRenameNoReplace(sys_, from, to));
    else if (fs::Exists(from / layout::kMemberRecord) && !fs::Exists(from / layout::kRecord))
      TRY(fs::WriteFileAtomic(from / layout::kRecord, TRY(fs::ReadFile(from / layout::kMemberRecord)), layout::kRecord.mode));
  }
  held.clear();
  if (fs::Exists(from)) {
    TRY(RemoveMember(member));
  } else if (fs::Exists(to)) {
    // A half-made session (no session.json): the session store's gc replays its journal.
    Sessions sessions(opts_);
    auto rep = sessions.Gc(std::nullopt);
    if (fs::Exists(to)) return MakeError("session dir " + to.string() + " still there: " +
                                         (rep.errors.empty() ? std::string("busy") : rep.errors.front()), EBUSY);
  }
  // The workspace: the member's (fresh, nothing of anyone's) wherever the claim left it.
  TRY(fs::RemoveTree(intent.workspace_from));
  if (!intent.existing && ::rmdir(intent.workspace_to.c_str()) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
    return ErrnoError("rmdir " + intent.workspace_to);
  ::unlink(file.c_str());
  return true;
}

}  // namespace sandshim::session
