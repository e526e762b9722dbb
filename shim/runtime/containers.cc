#include "shim/runtime/containers.h"

#include <signal.h>

#include "bundle/validate.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/scope_exit.h"
#include "shim/core/signal_forwarder.h"

namespace sandshim::runtime {
namespace json = boost::json;
using S = ContainerStatus;

// One spelling per root: runsc ids are derived from it, so "/run/x/" must equal "/run/x".
static std::filesystem::path NormalRoot(const std::filesystem::path& root) {
  std::error_code ec;
  auto p = std::filesystem::absolute(root, ec).lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Containers::Containers(Options o)
    : opts_(std::move(o)), store_((opts_.root = NormalRoot(opts_.root))) {
  if (opts_.make_backends) backends_ = opts_.make_backends(opts_);
  if (backends_.empty()) {
    // A programming error: every caller's Options come from the composition root.
    log::Error("runtime::Containers made without backends (Options::make_backends unset)");
    std::abort();
  }
}
Containers::~Containers() = default;

Backend* Containers::Find(std::string_view name) {
  for (auto& b : backends_)
    if (b->Name() == name) return b.get();
  return nullptr;
}

// A record naming no backend this binary knows goes to the first (the default, gVisor).
Backend& Containers::BackendNamed(std::string_view name) {
  auto* b = Find(name);
  return b ? *b : *backends_.front();
}

Result<BackendChoice> Containers::Choose(const bundle::Spec& spec, const std::string& forced) {
  SelectInput in;
  in.flag = forced.empty() ? opts_.backend_flag : forced;
  in.config = opts_.config.backend;
  if (auto it = spec.annotations.find(kBackendAnnotation); it != spec.annotations.end()) in.annotation = it->second;
  in.annotation_may_downgrade = opts_.config.allow_annotation_downgrade;
  // An explicit native choice needs no knowledge of runsc.
  bool native_asked = in.flag == "native" || (in.flag.empty() && in.config == "native");
  if (!native_asked) {
    auto gvisor = BackendNamed("gvisor").Probe();
    in.gvisor_usable = gvisor.usable;
    in.gvisor_problem = gvisor.problem;
    in.gvisor_forced_platform = opts_.config.platform;
  } else {
    in.gvisor_problem = "not probed: native requested";
  }
  in.native_available = true;
  return SelectBackend(in);
}

Result<BackendTraits> Containers::TraitsOf(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  return runtime::TraitsOf(rec.backend);
}

// The one undo of a container's journal: each step to what undoes it, a backend's own
// steps to the backend that writes them.
Status Containers::Undo(const ContainerStep& s) {
  for (auto& b : backends_)
    if (b->Owns(s)) return b->Undo(s);
  return std::visit(
      Overloaded{
          [](const step::File& f) -> Status {
            if (::unlink(f.path.c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + f.path);
            return Ok();
          },
          [](const step::Dir& d) { return fs::RemoveAll(d.path); },
          [](const auto&) -> Status {
            return MakeError("no backend here undoes a journal step of this kind", EINVAL);
          },
      },
      s);
}

// The journal's steps. Read strictly, except under force: a journal that cannot be read
// (corrupt, mistyped, a kind this binary does not know) would otherwise leave a container that
// nothing can delete. Then the entries that decode are undone, plus what the record names (the
// backend's RecordedSteps: the sandbox or cgroups, the init), plus the control namespace mount
// an older container keeps in its directory, with a warning naming what was not read.
Result<std::vector<ContainerStep>> Containers::StepsToUndo(const RecordLock& lock, const ContainerRecord* rec,
                                                           bool force) {
  auto file = store_.Dir(lock.id()) / "journal.json";
  auto journal = ContainerJournal::Load(file);
  if (journal) return journal->entries();
  if (!force) return journal.error();
  auto salvaged = SalvageJournal<ContainerStep>(file);
  std::vector<ContainerStep> steps;
  if (rec) steps = BackendNamed(rec->backend).RecordedSteps(*rec, store_.Dir(lock.id()));
  steps.insert(steps.end(), salvaged.entries.begin(), salvaged.entries.end());
  std::string unread;
  for (const auto& u : salvaged.unreadable) unread += (unread.empty() ? "" : "; ") + u;
  log::Warn("container " + std::string(lock.id()) + ": journal unreadable (" + unread + "): undoing the " +
            std::to_string(salvaged.entries.size()) + " entries it can read" + (rec ? " and what its record names" : ""));
  return steps;
}

Status Containers::ReplayAndErase(const RecordLock& lock, const ContainerRecord* rec, bool force) {
  auto steps = TRY(StepsToUndo(lock, rec, force));
  auto replayed = Replay(steps, [this](const ContainerStep& s) { return Undo(s); });
  if (force)  // what no journal names (an older gVisor container's own control namespace)
    for (auto& b : backends_) TRY(b->RemoveUnjournaled(store_.Dir(lock.id())));
  TRY(replayed);
  fault::Point("delete.after-replay");
  return store_.Erase(lock);
}

// fsync only buys surviving an OS crash, which matters only for what outlives the kernel:
// runsc's state files (gVisor) and whatever a hook did (its poststop hook must still run). A
// native container without hooks is cgroups and processes: gone with the kernel.
static bool NeedsDurableState(const BackendTraits& t, const bundle::Spec& spec) {
  if (!t.state_dies_with_kernel) return true;
  if (const auto* hooks = bundle::GetObject(spec.doc, "hooks"))
    for (const auto& kv : *hooks)
      if (kv.value().is_array() && !kv.value().get_array().empty()) return true;
  return false;
}

Result<ContainerRecord> Containers::BeginCreate(CreateRequest& r, const RecordLock& lock, const BackendChoice& choice,
                                                ContainerStatus status) {
  if (choice.fallback) log::Warn("falling back to the native runtime: " + choice.reason);
  ContainerRecord rec;
  rec.id = r.id;
  rec.backend = choice.backend;
  rec.bundle = r.bundle;
  rec.rootfs = bundle::RootfsPath(r.spec, r.bundle);
  rec.status = status;
  rec.owner = proc::Self();
  rec.created = log::NowRfc3339();
  rec.annotations = r.spec.annotations;
  rec.annotations["dev.sandshim.backend"] = choice.backend;
  rec.annotations["dev.sandshim.backend.reason"] = choice.reason;
  rec.durable = NeedsDurableState(choice.traits, r.spec);
  r.state_dir = store_.Dir(r.id);
  // A directory without a record is what a create that died leaves: undo its journal first,
  // or its entries would be lost when ours is written.
  auto stale = TRY(ContainerJournal::Load(r.state_dir / "journal.json"));
  TRY(Replay(stale.entries(), [this](const ContainerStep& s) { return Undo(s); }));
  (void)fs::RemoveAll(stale.file());
  TRY(store_.Save(lock, rec));
  return rec;
}

static Status CheckRequest(const CreateRequest& r) {
  TRY(ValidateId(r.id));
  if (!r.bundle.is_absolute()) return MakeError("bundle path must be absolute", EINVAL);
  TRY(bundle::ValidateSpec(r.spec, r.bundle));
  // The host's own root as the container's (directly or through a symlink): every backend
  // would run in, and write to, the host (review N6). runc refuses it at pivot_root only.
  std::error_code ec;
  auto root = std::filesystem::canonical(bundle::RootfsPath(r.spec, r.bundle), ec);
  if (!ec && root == "/") return MakeError("root.path resolves to the host's / (refused)", EINVAL);
  return Ok();
}

Status Containers::Create(CreateRequest r) {
  TRY(CheckRequest(r));
  auto choice = TRY(Choose(r.spec, r.backend));
  auto lock = TRY(store_.Lock(r.id, LockMode::kCreate));
  if (store_.HasRecord(r.id)) return MakeError("container " + r.id + " already exists", EEXIST);
  ScopeExit rollback([&] {
    if (auto s = ReplayAndErase(lock); !s) log::Error("rollback of " + r.id + ": " + s.error().msg);
  });
  auto rec = TRY(BeginCreate(r, lock, choice, S::kCreating));
  fault::Point("create.after-record");
  ContainerJournal journal(r.state_dir / "journal.json", rec.durable);
  auto created = TRY(BackendNamed(choice.backend).Create(r, journal));
  fault::Point("create.after-backend");
  rec.init = created.init;
  rec.backend_data = std::move(created.data);
  rec.status = r.restore_image.empty() ? S::kCreated : S::kRunning;  // a restore runs at once
  TRY(store_.Save(lock, rec));
  rollback.Dismiss();
  return Ok();
}

Result<int> Containers::Run(CreateRequest r, bool detach) {
  if (detach) {
    std::string id = r.id;
    bool restored = !r.restore_image.empty();
    TRY(Create(std::move(r)));
    if (restored) return 0;
    if (auto s = Start(id); !s) {
      (void)Delete(id, true);
      return s.error();
    }
    return 0;
  }
  TRY(CheckRequest(r));
  auto choice = TRY(Choose(r.spec, r.backend));
  std::string id = r.id;
  int status = 0;
  bool durable = true;
  {
    auto lock = TRY(store_.Lock(r.id, LockMode::kCreate));
    if (store_.HasRecord(r.id)) return MakeError("container " + r.id + " already exists", EEXIST);
    // Running from the start: it lives exactly as long as this process (its owner) does.
    auto rec = BeginCreate(r, lock, choice, S::kRunning);
    if (!rec) {
      (void)store_.Erase(lock);
      return rec.error();
    }
    durable = rec->durable;
  }
  // Without the lock while the workload runs: kill and delete --force must get through.
  ContainerJournal journal(r.state_dir / "journal.json", durable);
  auto result = BackendNamed(choice.backend).Run(r, journal);
  if (result) status = *result;
  if (auto lock = store_.Lock(id); lock) {
    if (auto s = ReplayAndErase(*lock); !s) log::Error("cleanup of " + id + ": " + s.error().msg);
  }
  if (!result) return result.error();
  return status;
}

Result<std::pair<RecordLock, ContainerRecord>> Containers::LockLoaded(std::string_view id) {
  auto lock = TRY(store_.Lock(id));
  auto rec = TRY(store_.Load(id));
  return std::pair{std::move(lock), std::move(rec)};
}

Status Containers::Start(std::string_view id) {
  auto [lock, rec] = TRY(LockLoaded(id));
  TRY(Require(id, LiveStatus(rec), "start", {S::kCreated}));
  fault::Point("start.before-backend");
  auto s = BackendNamed(rec.backend).Start(rec);
  fault::Point("start.after-backend");
  rec.status = s ? S::kRunning : S::kStopped;
  TRY(store_.Save(lock, rec));
  return s;
}

Result<ContainerRecord> Containers::State(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  rec.status = LiveStatus(rec);
  return rec;
}

Status Containers::Kill(std::string_view id, int signal, bool all) {
  auto rec = TRY(store_.Load(id));
  TRY(Require(id, LiveStatus(rec), "kill", {S::kCreated, S::kRunning, S::kPaused}));
  fault::Point("kill.before-backend");
  return BackendNamed(rec.backend).Kill(rec, signal, all);
}

Status Containers::Delete(std::string_view id, bool force) {
  auto locked = store_.Lock(id);
  // As runc: with --force, a container that is already gone is deleted, silently (podman
  // deletes after every failed create, and showed our "does not exist" beside the real error).
  if (!locked && force && locked.error().err_no == ENOENT) return Ok();
  auto lock = TRY(std::move(locked));
  auto rec = store_.Load(id);
  if (!rec) return ReplayAndErase(lock, nullptr, force);  // a directory without a record: a create that died
  S st = LiveStatus(*rec);
  if (st == S::kRunning || st == S::kPaused || st == S::kCreating) {
    if (!force)
      return MakeError("cannot delete container " + std::string(id) + " that is not stopped: " +
                           std::string(StatusName(st)),
                       EBUSY);
    if (st != S::kCreating) (void)BackendNamed(rec->backend).Kill(*rec, SIGKILL, true);
  }
  fault::Point("delete.before-replay");
  auto s = ReplayAndErase(lock, &*rec, force);
  if (!s) return s.error().Wrap("delete " + std::string(id));
  return Ok();
}

Result<std::unique_ptr<proc::Running>> Containers::StartExec(std::string_view id, const ExecRequest& r,
                                                            const ExecStdio& stdio) {
  auto rec = store_.Load(id);
  // ENOENT from here means "the command is not there" (127): a missing container is not that.
  if (!rec) return MakeError(rec.error().msg, rec.error().err_no == ENOENT ? ESRCH : rec.error().err_no);
  TRY(Require(id, LiveStatus(*rec), "exec into", {S::kRunning}));
  fault::Point("exec.before-backend");
  return BackendNamed(rec->backend).StartExec(*rec, r, stdio);
}

Result<int> Containers::Exec(std::string_view id, ExecRequest r, const ExecStdio& stdio) {
  // Blocked from before the start (the command's own mask is set where it starts): a ^C or a
  // TERM between the start and the wait is passed on, not the end of us with it unwatched.
  std::optional<process::HeldSignals> held;
  if (!r.detach) held.emplace();
  auto cmd = TRY(StartExec(id, r, stdio));
  if (!r.detach) return proc::WaitForwardingSignals(*cmd);
  if (r.pid_file) TRY(fs::WriteFileAtomic(*r.pid_file, std::to_string(cmd->Pid()), 0644, /*sync=*/false));
  return static_cast<int>(cmd->Pid());
}

Status Containers::Pause(std::string_view id) {
  auto [lock, rec] = TRY(LockLoaded(id));
  TRY(Require(id, LiveStatus(rec), "pause", {S::kRunning}));
  TRY(BackendNamed(rec.backend).Pause(rec));
  rec.status = S::kPaused;
  return store_.Save(lock, rec);
}

Status Containers::Resume(std::string_view id) {
  auto [lock, rec] = TRY(LockLoaded(id));
  TRY(Require(id, LiveStatus(rec), "resume", {S::kPaused}));
  TRY(BackendNamed(rec.backend).Resume(rec));
  rec.status = S::kRunning;
  return store_.Save(lock, rec);
}

Result<std::vector<pid_t>> Containers::Pids(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  if (LiveStatus(rec) == S::kStopped) return std::vector<pid_t>{};
  return BackendNamed(rec.backend).Pids(rec);
}

Result<std::string> Containers::PsTable(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  TRY(Require(id, LiveStatus(rec), "ps", {S::kCreated, S::kRunning, S::kPaused}));
  return BackendNamed(rec.backend).PsTable(rec);
}

Result<size_t> Containers::ProcessCount(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  TRY(Require(id, LiveStatus(rec), "ps", {S::kCreated, S::kRunning, S::kPaused}));
  return BackendNamed(rec.backend).ProcessCount(rec);
}

Result<json::value> Containers::Stats(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  TRY(Require(id, LiveStatus(rec), "get stats of", {S::kCreated, S::kRunning, S::kPaused}));
  return BackendNamed(rec.backend).Stats(rec);
}

Status Containers::Update(std::string_view id, const json::object& resources) {
  (void)TRY(bundle::ResourcesFromJson(resources, "update --resources"));
  auto rec = TRY(store_.Load(id));
  TRY(Require(id, LiveStatus(rec), "update", {S::kCreated, S::kRunning, S::kPaused}));
  return BackendNamed(rec.backend).Update(rec, resources);
}

Result<bundle::Spec> Containers::SpecOf(std::string_view id) {
  auto rec = TRY(store_.Load(id));
  return bundle::LoadSpec(rec.bundle);
}

std::vector<ContainerRecord> Containers::List() {
  std::vector<ContainerRecord> out;
  for (const auto& id : store_.List()) {
    auto rec = store_.Load(id);
    if (!rec) continue;  // a create in progress or one that died before its first save
    rec->status = LiveStatus(*rec);
    out.push_back(std::move(*rec));
  }
  return out;
}

}  // namespace sandshim::runtime
