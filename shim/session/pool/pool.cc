// Pool: definition, refill, drain, status and gc. The claim is pool_claim.cc.
#include "shim/session/pool/pool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "bundle/spec.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/process.h"
#include "shim/core/remove_tree.h"
#include "shim/session/pool/pool_lock.h"
#include "shim/session/store/host.h"
#include "shim/session/exec/resolve_profile.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

// A member's pool marker, written once the member is whole: the definition it was made from.

Pool::Pool(runtime::Options o, std::string name, std::vector<std::string> refill_argv)
    : opts_(o),
      name_(std::move(name)),
      paths_(o.root, name_),
      refill_argv_(std::move(refill_argv)),
      members_(o, paths_.members),
      sys_(HostOf(o)) {}

static std::vector<std::string> DirNames(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_directory(ec) && !e.is_symlink(ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ListPools(const std::filesystem::path& root) {
  std::vector<std::string> out;
  for (auto& n : DirNames(RootLayout(root).pools()))
    if (fs::Exists(PoolPaths(root, n).def)) out.push_back(n);
  return out;
}

Result<PoolDef> Pool::Define(const runtime::Options& o, const std::string& name, std::string_view text) {
  TRY_CTX(ValidateId(name), "pool name");
  PoolPaths paths(o.root, name);
  auto def = TRY(ParsePoolDef(name, text, paths.default_workspaces));
  if (def.workspace_parent != paths.default_workspaces) TRY(CheckWorkspaceParent(def.workspace_parent));
  if (!def.from_snapshot.empty() && !fs::Exists(SnapshotsDirOf(o.root) / def.from_snapshot / layout::kSnapshotImage))
    return MakeError("pool file: from_snapshot: snapshot " + def.from_snapshot + " does not exist (session snapshot)", ENOENT);
  // Traversable, not listable (as the runtime root): a native member's init, running as its
  // own host ids, opens its rootfs below members/<id>/.
  TRY(fs::MkdirAll(paths.dir, 0711));
  for (const auto& d : {paths.dir.parent_path(), paths.dir})
    if (::chmod(d.c_str(), 0711) != 0) return ErrnoError("chmod " + d.string());
  auto lock = TRY(LockFile(paths.lock));
  // The profile alone too: members and cold creates read it as a profile file.
  TRY(fs::WriteFileAtomic(paths.profile, json::serialize(def.profile), 0600));
  TRY(fs::WriteFileAtomic(paths.def, text, 0600));
  return def;
}

Result<PoolDef> Pool::Load() const {
  auto text = fs::ReadFile(paths_.def);
  if (!text) return MakeError("pool " + name_ + " does not exist (sandshim pool define " + name_ + " FILE)", ENOENT);
  auto d = TRY(ParsePoolDef(name_, *text, paths_.default_workspaces));
  // A snapshot made again under the same name is another warm state: the members restored
  // from the old one are of another generation (never handed out, drained by the next fill).
  if (!d.from_snapshot.empty()) {
    auto meta = bundle::ParseJson(fs::ReadFile(SnapshotsDirOf(opts_.root) / d.from_snapshot / layout::kSnapshotMeta).value_or(""), "snapshot");
    d.generation += "+" + (meta && meta->is_object() ? bundle::GetString(meta->as_object(), "created") : std::string("gone"));
  }
  return d;
}

bool HasIntent(const PoolPaths& p, const std::string& member) {
  return fs::Exists(p.claims / (member + ".json"));
}

// Members whose marker names the current definition and that no claim has taken.
std::vector<std::string> Pool::ReadyMembers(const PoolDef& d, uint32_t* stale) {
  std::vector<std::string> out;
  for (auto& m : DirNames(paths_.members)) {
    auto marker = fs::ReadFile(paths_.members / m / layout::kMemberMarker);
    if (!marker || HasIntent(paths_, m)) continue;
    auto v = bundle::ParseJson(*marker, "pool member");
    if (v && v->is_object() && bundle::GetString(v->as_object(), "generation") == d.generation) out.push_back(m);
    else if (stale) ++*stale;
  }
  return out;
}

Result<bundle::SessionProfile> MemberProfile(const PoolPaths& paths, const std::string& workspace) {
  ProfileInputs in;
  in.profile_file = paths.profile.string();
  in.workspace = workspace;
  if (const char* cache = ::getenv("SANDSHIM_ROOTFS_CACHE"); cache && *cache) in.rootfs_cache = cache;
  return ResolveProfile(in);
}

// A fresh directory owned by the session's user (what a platform hands a session).
Status MakeWorkspace(const std::filesystem::path& dir, uint32_t uid, uint32_t gid) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoError("mkdir " + dir.string());
  if (::chown(dir.c_str(), uid, gid) != 0) return ErrnoError("chown " + dir.string());
  return Ok();
}

Result<std::string> Pool::MakeMember(const PoolDef& d) {
  auto member = TRY(NewId("m-"));
  auto ws = MemberWorkspace(d, member);
  // The default parent is root's only (0700): a workspace belongs to the session's user on
  // the host (1000 = 1000 inside), and with a traversable parent the host account of that
  // uid read claimed tenants' workspaces and planted files in members not yet claimed (red
  // team). runsc's gofer and the native setup open it as root. A parent the pool file names
  // is the operator's: its mode is left alone.
  if (d.workspace_parent == paths_.default_workspaces) {
    TRY(fs::MkdirAll(d.workspace_parent, 0700));
    if (::chmod(d.workspace_parent.c_str(), 0700) != 0) return ErrnoError("chmod " + d.workspace_parent.string());
  } else {
    TRY(CheckWorkspaceParent(d.workspace_parent));  // still no link on the way (since define)
    TRY(fs::MkdirAll(d.workspace_parent, 0711));
  }
  auto p = TRY(MemberProfile(paths_, ws.string()));
  // Before the member exists: gc removes a .member-<id> workspace whose member is gone.
  TRY(MakeWorkspace(ws, p.uid, p.gid));
  fault::Point("pool.fill.after-workspace");
  p.shared_ws_parent = layout::kWsroot.rel;  // gVisor: Create mounts <member>/wsroot shared (docs/POOL.md)
  TRY_CTX(members_.Create(member, "", p, {}, d.from_snapshot), "pool " + name_ + ": member " + member);
  json::object marker{{"pool", name_}, {"generation", d.generation}, {"workspace", ws.string()}};
  if (fs::Exists(SessionLayout(paths_.members / member).wsroot())) {
    TRY_CTX(LinkSharedWorkspace(member, p.workspace_dest), "pool " + name_ + ": member " + member);
    marker["shared_ws"] = true;
  }
  fault::Point("pool.fill.before-marker");
  TRY(fs::WriteFileAtomic(paths_.members / member / layout::kMemberMarker, json::serialize(marker), 0600));
  return member;
}

// workspace_dest -> /.sshim-ws/ws in the member's root: gVisor's writable layer is the
// sandbox's memory overlay, so a root exec makes it (the refill's time, not a claim's); an
// empty directory the image ships there is replaced, anything else fails the member.
Status Pool::LinkSharedWorkspace(const std::string& member, const std::string& dest) {
  auto r = TRY(members_.Get(member));
  auto spec = TRY(bundle::ParseJson(TRY(fs::ReadFile(paths_.members / member / layout::kBundleConfig)), "member spec"));
  runtime::ExecRequest req;
  if (auto* proc = spec.as_object().if_contains("process"); proc && proc->is_object()) req.process = proc->as_object();
  req.process["user"] = {{"uid", 0}, {"gid", 0}};
  req.process["cwd"] = "/";
  req.process["terminal"] = false;
  std::string target = std::string(bundle::kSharedWorkspaceMount) + "/ws";
  req.process["args"] = json::array{"/bin/sh", "-c", "d=\"$1\"; mkdir -p \"${d%/*}/\" && { [ ! -d \"$d\" ] || rmdir \"$d\"; } && ln -s \"$2\" \"$d\"",
                                    "sh", dest, target};
  runtime::Containers containers(opts_);
  // Its own descriptors, never /dev/null: an exec's stdio is handed to the process's user
  // (chowned, as runc does), which must not be a host device.
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return ErrnoError("pipe");
  UniqueFd in_r(in[0]);
  ::close(in[1]);
  auto log_path = paths_.members / member / layout::kLinkWorkspaceLog;
  int out = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (out < 0) return ErrnoError("open " + log_path.string());
  UniqueFd out_fd(out);
  auto code = TRY(containers.Exec(r.container_id, req, runtime::ExecStdio::Fds(in_r.get(), out, out)));
  if (code != 0) return MakeError("link " + dest + " to the shared workspace: exit " + std::to_string(code), EIO);
  return Ok();
}

static double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

Status Pool::Fill() {
  auto d = TRY(Load());
  TRY(fs::MkdirAll(paths_.members, 0700));
  TRY(fs::MkdirAll(paths_.claims, 0700));
  auto fill = TRY(TryLockFile(paths_.fill_lock));
  if (!fill) return Ok();  // a refill is running: it fills to size
  auto start = std::chrono::steady_clock::now();
  auto rep = GcImpl(/*sweep_members=*/true);
  for (const auto& e : rep.errors) log::Warn("pool " + name_ + ": gc: " + e);
  uint32_t made = 0;
  // Claims may take members while we make them; bounded so a claim storm ends the refill.
  for (uint32_t round = 0; round < 3 * d.size && ReadyMembers(d, nullptr).size() < d.size; ++round) {
    TRY(MakeMember(d));
    ++made;
  }
  auto lock = TRY(LockFile(paths_.lock));
  auto s = ReadPoolStats(paths_.stats);
  s.refills++;
  s.members_made += made;
  s.last_refill_seconds = SecondsSince(start);
  s.refill_seconds_total += s.last_refill_seconds;
  return WritePoolStats(paths_.stats, s);
}

void Pool::RefillInBackground() {
  if (refill_argv_.empty()) return;
  process::ProcessSpec spec;
  spec.argv = refill_argv_;
  spec.exe = refill_argv_[0];
  // Nothing of the caller's: no fds, no terminal, no environment beyond what sandshim reads.
  spec.env = std::vector<std::string>{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  for (const char* k : {"SANDSHIM_CONFIG", "SANDSHIM_ROOTFS_CACHE", "SANDSHIM_FAULT"})
    if (const char* v = ::getenv(k)) spec.env->push_back(std::string(k) + "=" + v);
  spec.cwd = "/";
  spec.new_session = true;
  for (int fd : {0, 1, 2}) spec.Open("/dev/null", O_RDWR, fd);
  auto child = process::Spawn(spec);
  if (!child) {
    log::Warn("pool " + name_ + ": refill: " + child.error().msg);
    return;
  }
  child->Release();  // it outlives us; init reaps it
}

Status Pool::RemoveMember(const std::string& member) {
  std::string ws;
  if (auto marker = fs::ReadFile(paths_.members / member / layout::kMemberMarker))
    if (auto v = bundle::ParseJson(*marker, "pool member"); v && v->is_object()) ws = bundle::GetString(v->as_object(), "workspace");
  if (fs::Exists(paths_.members / member / layout::kRecord)) {
    auto s = members_.Delete(member);
    if (!s && s.error().err_no != ENOENT) return s;
  }
  if (!ws.empty()) TRY(fs::RemoveTree(ws));
  return Ok();
}

Status Pool::Drain() {
  if (!fs::Exists(paths_.dir)) return MakeError("pool " + name_ + " does not exist", ENOENT);
  // Lock order everywhere: the fill lock before the pool lock (a refill holds the first
  // and takes the second for its gc and counters).
  auto fill = TRY(LockFile(paths_.fill_lock));  // waits for a running refill to finish
  auto lock = TRY(LockFile(paths_.lock));
  Status result = Ok();
  for (auto& m : DirNames(paths_.members))
    if (!HasIntent(paths_, m))
      if (auto s = RemoveMember(m); !s) result = s;
  return result;
}

Result<PoolStatus> Pool::GetStatus() {
  PoolStatus st;
  st.def = TRY(Load());
  st.ready = static_cast<uint32_t>(ReadyMembers(st.def, &st.stale).size());
  auto all = DirNames(paths_.members).size();
  st.making = static_cast<uint32_t>(all) > st.ready + st.stale ? static_cast<uint32_t>(all) - st.ready - st.stale : 0;
  st.stats = ReadPoolStats(paths_.stats);
  return st;
}

void Pool::CountMiss() {
  if (auto lock = LockFile(paths_.lock)) {
    auto s = ReadPoolStats(paths_.stats);
    s.misses++;
    (void)WritePoolStats(paths_.stats, s);
  }
}

PoolGcReport Pool::Gc() {
  // Members and workspaces only while no refill is making them.
  auto fill = TryLockFile(paths_.fill_lock);
  return GcImpl(/*sweep_members=*/fill && *fill);
}

PoolGcReport Pool::GcImpl(bool sweep_members) {
  PoolGcReport rep;
  auto note = [&](const std::string& what, const Status& s) {
    if (s) rep.removed.push_back("pool " + name_ + ": " + what);
    else rep.errors.push_back("pool " + name_ + ": " + what + ": " + s.error().msg);
  };
  auto lock = LockFile(paths_.lock);
  if (!lock) {
    rep.errors.push_back(lock.error().msg);
    return rep;
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(paths_.claims, ec))
    if (e.path().extension() == ".json") {
      auto member = e.path().stem().string();
      auto s = RecoverClaim(member);
      if (!s || s.value()) note("interrupted claim of member " + member, s ? Ok() : Status(s.error()));
    }
  if (!sweep_members) return rep;
  auto def = Load();
  for (auto& m : DirNames(paths_.members)) {
    auto dir = paths_.members / m;
    if (HasIntent(paths_, m) || !fs::Exists(dir / layout::kRecord)) continue;  // half-made: the session gc below
    std::string why;
    auto marker = fs::ReadFile(dir / layout::kMemberMarker);
    if (!marker) why = "half-made";
    else if (!def || marker->find(def->generation) == std::string::npos) why = "made from an older definition";
    else if (auto r = members_.Get(m); r && r->status != "running") why = "sandbox " + r->status;
    if (!why.empty()) note("member " + m + " (" + why + ")", RemoveMember(m));
  }
  auto sg = members_.Gc(std::nullopt);
  for (auto& r : sg.removed) rep.removed.push_back("pool " + name_ + ": " + r);
  for (auto& r : sg.errors) rep.errors.push_back("pool " + name_ + ": " + r);
  if (def) {
    for (auto& w : DirNames(def->workspace_parent)) {
      if (!w.starts_with(".member-")) continue;
      auto member = w.substr(8);
      if (fs::Exists(paths_.members / member) || HasIntent(paths_, member)) continue;
      note("workspace " + w + " (no member)", fs::RemoveTree(def->workspace_parent / w));
    }
  }
  return rep;
}

Status RemoveUnpooledSnapshot(Sessions& sessions, const std::filesystem::path& root, const std::string& name) {
  TRY_CTX(ValidateId(name), "snapshot name");
  if (auto pool = PoolUsingSnapshot(root, name); !pool.empty())
    return MakeError("snapshot " + name + " is used by pool " + pool + " (pool drain --delete " + pool + " first)", EBUSY);
  return sessions.RemoveSnapshot(name);
}

}  // namespace sandshim::session
