// Spare context containers: the claim's steps, the refill (Contexts::Refill) and the
// session layer's undo, gc and stop of spares. See context_spare.h for the layout and order.
#include "shim/session/contexts/context_spare.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <charconv>

#include "bundle/spec.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/process.h"
#include "shim/core/remove_tree.h"
#include "shim/session/contexts/context_home.h"
#include "shim/core/scope_exit.h"
#include "shim/runtime/journal.h"
#include "shim/session/egress/context_egress_file.h"
#include "shim/runtime/record_rebase.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/egress/relay_cgroup.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

std::filesystem::path ReadyMarker(const std::filesystem::path& spare_dir) { return spare_dir / layout::kSpareReady; }

bool Running(runtime::Containers& containers, const std::string& id) {
  auto st = containers.State(id);
  return st && st->status == runtime::ContainerStatus::kRunning;
}

// The spare directories now present (ready or being made), by name.
std::vector<std::filesystem::path> SpareDirs(const std::filesystem::path& session_dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(SparesDir(session_dir), ec))
    if (e.is_directory(ec)) out.push_back(e.path());
  return out;
}

Result<std::optional<UniqueFd>> LockRefill(const std::filesystem::path& session_dir, bool wait) {
  UniqueFd fd(::open(SparesDir(session_dir).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<UniqueFd>();
    return ErrnoError("open " + SparesDir(session_dir).string());
  }
  while (::flock(fd.get(), LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EWOULDBLOCK && !wait) return std::optional<UniqueFd>();
    if (errno != EINTR) return ErrnoError("lock " + SparesDir(session_dir).string());
  }
  return std::optional<UniqueFd>(std::move(fd));
}

}  // namespace

std::filesystem::path SparesDir(const std::filesystem::path& session_dir) { return session_dir / layout::kSpares; }

Result<std::string> NewSpareId(std::string_view session_id) {
  return TRY(NewId("spare-")) + "+" + std::string(session_id);
}

std::optional<Spare> TakeReadySpare(runtime::Containers& containers, const std::filesystem::path& session_dir) {
  for (const auto& dir : SpareDirs(session_dir)) {
    if (!fs::Exists(ReadyMarker(dir))) continue;
    Spare s{dir.filename().string(), dir};
    if (!Running(containers, s.container_id)) continue;  // died: gc's
    if (::unlink(ReadyMarker(dir).c_str()) != 0) continue;
    return s;
  }
  return std::nullopt;
}

Status AdoptSpare(const runtime::Options& o, const Spare& s, const std::filesystem::path& context_dir) {
  TRY(fs::MkdirAll(context_dir.parent_path(), 0700));
  if (::rename(s.dir.c_str(), context_dir.c_str()) != 0)
    return ErrnoError("rename " + s.dir.string() + " to " + context_dir.string());
  // Its record names the bundle it was made from; `list`, SpecOf and the poststop hooks read it.
  return runtime::RebaseRecord(runtime::StateStore(o.root), s.container_id, {{s.dir.string(), context_dir.string()}});
}

Result<std::optional<UniqueFd>> TryLockRefill(const std::filesystem::path& session_dir) {
  return LockRefill(session_dir, /*wait=*/false);
}

Result<std::optional<UniqueFd>> WaitForRefill(const std::filesystem::path& session_dir) {
  return LockRefill(session_dir, /*wait=*/true);
}

Status PrepareSpares(const std::filesystem::path& session_dir) { return fs::MkdirAll(SparesDir(session_dir), 0700); }

Status SetSpareDepth(const std::filesystem::path& session_dir, int depth) {
  if (depth < 1 || depth > kMaxSpareDepth)
    return MakeError("--context-spares: " + std::to_string(depth) + " is not in 1.." + std::to_string(kMaxSpareDepth), EINVAL);
  TRY(PrepareSpares(session_dir));
  return fs::WriteFileAtomic(session_dir / layout::kSpareDepth, std::to_string(depth), 0600, /*sync=*/false);
}

int AskedSpareDepth(const std::filesystem::path& session_dir) {
  auto text = fs::ReadFile(session_dir / layout::kSpareDepth);
  if (!text) return 0;
  int d = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), d);
  bool whole = ec == std::errc() && end == text->data() + text->size();
  return whole && d >= 1 && d <= kMaxSpareDepth ? d : 0;  // not ours: as if none was asked for
}

Status StartRefill(const std::vector<std::string>& argv, bool wait) {
  if (argv.empty()) return Ok();
  process::ProcessSpec spec;
  spec.argv = argv;
  spec.exe = argv[0];
  spec.env = std::vector<std::string>{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  for (const char* k : {"SANDSHIM_CONFIG", "SANDSHIM_FAULT"})
    if (const char* v = ::getenv(k)) spec.env->push_back(std::string(k) + "=" + v);
  spec.cwd = "/";
  spec.new_session = true;  // no signal to our caller's process group or terminal reaches it
  for (int fd : {0, 1, 2}) spec.Open("/dev/null", O_RDWR, fd);  // Spawn closes every other fd
  auto child = process::Spawn(spec);
  if (!child) {
    log::Warn("spare context refill: " + child.error().msg);
    return Status(child.error());
  }
  if (!wait) {
    child->Release();  // it outlives us; init (or our subreaper) reaps it
    return Ok();
  }
  auto st = TRY(child->Wait());
  if (st && !st->Success()) return MakeError("spare context refill: " + st->Describe(), EIO);
  return Ok();
}

// The refill: runs detached (StartRefill), in the session sandbox's cgroups. The slow part
// (runsc create + start) runs without the session lock; the spare is journaled before it and
// marked ready under the lock after it, so a claim never sees a spare that is not running.
Status Contexts::Refill(const std::string& session_ref) {
  auto s = TRY(sessions_.Get(session_ref));
  if (!InSandbox(s)) return Ok();
  runtime::StateStore store(RootLayout(opts_.root).sessions());
  auto dir = store.Dir(s.id);
  auto refill = TRY(TryLockRefill(dir));
  if (!refill) return Ok();  // another refill runs (it makes the spares), or no contexts yet
  auto sandbox = TRY(containers_.State(s.container_id));
  TRY_CTX(JoinSessionCgroups(sandbox.init.pid), "spare refill");
  // One at a time up to the depth (each re-checked under the session lock): a claim made
  // meanwhile is refilled by this same run, since a second refill exits at once.
  for (int i = 0; i < 2 * kMaxSpareDepth; ++i)
    if (!TRY(RefillOne(s.id))) return Ok();
  return Ok();
}

// Makes one spare; false when none is needed (enough ready, no contexts asked for, or the
// session is not running). Runs with the refill lock held.
Result<bool> Contexts::RefillOne(const std::string& session_id) {
  runtime::StateStore store(RootLayout(opts_.root).sessions());
  auto dir = store.Dir(session_id);
  SessionRecord s;
  Spare spare;
  bundle::Spec spec;
  {
    auto lock = TRY(store.Lock(session_id));
    s = TRY(sessions_.Get(session_id));
    // Only for a running session (stop removes spares) that has contexts or asked for spares.
    int depth = AskedSpareDepth(dir);
    if (depth == 0 && CountContexts(dir) > 0) depth = 1;
    if (s.status != "running" || depth == 0) return false;
    int ready = 0;
    for (const auto& d : SpareDirs(dir))
      ready += fs::Exists(ReadyMarker(d)) && Running(containers_, d.filename().string());
    if (ready >= depth) return false;
    spare.container_id = TRY(NewSpareId(s.id));
    spare.dir = SparesDir(dir) / spare.container_id;
    auto journal = TRY(SessionJournal::Load(dir / layout::kJournal, /*durable=*/false));  // as a context's
    TRY(journal.Append(step::SessionContextSpare{.id = spare.container_id, .dir = spare.dir.string()}));
    fault::Point("session.context.spare.after-journal");
    TRY(fs::MkdirAll(spare.dir / layout::kBundle, layout::kBundle.mode));
    ContextPlacement at{.in_session_sandbox = InSandbox(s), .session_container = s.container_id};
    auto session_spec = TRY(bundle::LoadSpec(dir / layout::kBundle)).doc;
    TRY(PlaceBroker(dir, s, session_spec, spare.dir, at));  // a cold context's container exactly
    TRY(PlaceIdentity(dir, spare.dir, at));
    TRY(MakeHomeDir(spare.dir));
    if (!at.path_file.empty()) {
      auto key = TRY(NewContextToken());
      TRY(fs::WriteFileAtomic(at.path_file, key + "\n", 0600, /*sync=*/false));
    }
    auto doc = TRY(ContextContainerSpec(std::move(session_spec), at));
    TRY(fs::WriteFileAtomic(spare.dir / layout::kBundleConfig, json::serialize(doc), 0600, /*sync=*/false));
    spec = TRY(bundle::SpecFromJson(std::move(doc)));
  }
  bool ready = false;
  ScopeExit rollback([&] {
    if (ready) return;
    if (auto u = UndoSpare(containers_, {.id = spare.container_id, .dir = spare.dir.string()}); !u)
      log::Warn("spare " + spare.container_id + ": rollback: " + u.error().msg);
  });
  {
    proc::DetachedStdio detached;  // ours are /dev/null already; this also marks every other fd close-on-exec
    runtime::CreateRequest req;
    req.id = spare.container_id;
    req.bundle = spare.dir / layout::kBundle;
    req.spec = std::move(spec);
    req.null_stdio = true;
    req.backend = s.backend;
    TRY_CTX(containers_.Run(std::move(req), /*detach=*/true), "spare " + spare.container_id);
  }
  fault::Point("session.context.spare.after-container");
  auto lock = TRY(store.Lock(s.id));
  if (TRY(sessions_.Get(s.id)).status != "running") return MakeError("session " + s.id + " stopped meanwhile", ESRCH);
  TRY(fs::WriteFileAtomic(ReadyMarker(spare.dir), "", 0600, /*sync=*/false));  // dies with the kernel anyway
  ready = true;
  return true;
}

Status UndoSpare(runtime::Containers& containers, const step::SessionContextSpare& data) {
  const auto& id = data.id;
  const auto& dir = data.dir;
  if (id.empty() || dir.empty()) return MakeError("session-context-spare entry without id or dir", EINVAL);
  // Claimed: the directory moved to its context, whose entry owns the container now.
  if (!fs::Exists(dir)) return Ok();
  auto s = containers.Delete(id, /*force=*/true);
  if (!s && s.error().err_no != ENOENT) return s;
  return fs::RemoveTree(dir);
}

std::vector<std::string> GcSpares(runtime::Containers& containers, const std::filesystem::path& session_dir,
                                  std::vector<std::string>& errors) {
  std::vector<std::string> removed;
  auto journal = SessionJournal::Load(session_dir / layout::kJournal);
  if (!journal) return removed;
  // A refill that runs holds the lock: what it is making is not half-made.
  auto refill = TryLockRefill(session_dir);
  bool refilling = refill && !*refill && fs::Exists(SparesDir(session_dir));
  for (const auto& entry : journal->entries()) {
    const auto* e = std::get_if<step::SessionContextSpare>(&entry);
    if (!e) continue;
    std::filesystem::path dir(e->dir);
    const auto& id = e->id;
    if (!fs::Exists(dir)) continue;  // claimed or undone
    bool ready = fs::Exists(ReadyMarker(dir));
    if (ready ? Running(containers, id) : refilling) continue;
    if (auto s = UndoSpare(containers, *e); !s) errors.push_back("spare " + id + ": " + s.error().msg);
    else removed.push_back("spare context container " + id + (ready ? " (dead)" : " (half-made)"));
  }
  return removed;
}

Status StopSpares(runtime::Containers& containers, const std::filesystem::path& session_dir) {
  auto journal = TRY(SessionJournal::Load(session_dir / layout::kJournal));
  std::string errors;
  for (const auto& entry : journal.entries())
    if (const auto* e = std::get_if<step::SessionContextSpare>(&entry))
      if (auto s = UndoSpare(containers, *e); !s) errors += (errors.empty() ? "" : "; ") + s.error().msg;
  if (errors.empty()) return Ok();
  return MakeError("spares: " + errors, EIO);
}

SpareCount CountSpares(const std::filesystem::path& session_dir) {
  SpareCount c;
  for (const auto& d : SpareDirs(session_dir)) ++(fs::Exists(ReadyMarker(d)) ? c.ready : c.making);
  return c;
}

}  // namespace sandshim::session
