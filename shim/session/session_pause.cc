// Sessions::Pause and Sessions::Resume (#35, docs/SESSIONS.md "Pause and resume"): a gVisor
// session's sandbox checkpointed to <dir>/snapshot (runsc checkpoint), after which no process
// of it stays and its memory is freed; resume boots a sandbox from the image (runsc restore)
// with its kernel as it was: the init's process tree, /tmp and the writable layer (the 2024
// runsc's restore kills every process an exec started: its caller is gone). The workspace and
// mounts are the host's and simply stay; the relay (proxy mode) and spares go as at stop.
// Credential contexts: their containers end before the checkpoint and run again after the
// restore, as they were made (context_pause.h).
//
// Crash safety: the snapshot directory is journaled (session-snapshot) before it is made, so
// delete and gc remove it whatever happened. The record's state is the commit point of both
// verbs: a snapshot beside a session that is not paused is what a pause that died left (gc
// and start end its sandbox, which the checkpoint ends anyway, and remove it; start then
// boots afresh; the next pause and stop remove it too); a sandbox beside a paused session is what a resume that
// died left (the next resume and gc delete it, the snapshot stays).
#include <sys/stat.h>

#include <chrono>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/scope_exit.h"
#include "shim/session/store/audit.h"
#include "shim/session/contexts/context_pause.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/egress/network.h"
#include "shim/session/sessions.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace {

using Clock = std::chrono::steady_clock;

int64_t Millis(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

// The image's size on disk (runsc writes a flat directory).
int64_t ImageBytes(const std::filesystem::path& dir) {
  int64_t total = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += st.st_size;
  }
  return total;
}

// Journals the snapshot directory once per session (every pause reuses the entry).
Status JournalSnapshot(const std::filesystem::path& dir, const std::filesystem::path& snap) {
  auto journal = TRY(SessionJournal::Load(dir / layout::kJournal));
  for (const auto& e : journal.entries())
    if (const auto* s = std::get_if<step::SessionSnapshot>(&e); s && s->path == snap.string()) return Ok();
  return journal.Append(step::SessionSnapshot{snap.string()});
}

}  // namespace

Result<SessionRecord> Sessions::Pause(const std::string& ref) {
  auto id = TRY(Resolve(ref));
  auto dir = Dir(id);
  auto refill = TRY(WaitForRefill(dir));  // a spare being made (context_spare.h: lock order)
  auto lock = TRY(store_.Lock(id));
  return PauseLocked(TRY(Load(id)));
}

Result<SessionRecord> Sessions::PauseLocked(SessionRecord r) {
  const std::string id = r.id;
  auto dir = Dir(id);
  if (r.status != "running") return MakeError("session " + id + " is " + r.status + ": only a running session can be paused", EINVAL);
  // Every check before anything changes: a refused pause leaves the session as it was.
  TRY_CTX(containers_.CheckpointSupport(r.backend), "session " + id + ": cannot pause");
  auto started = Clock::now();
  auto snap = SnapshotDir(dir);
  TRY(JournalSnapshot(dir, snap));
  TRY(fs::RemoveAll(snap));  // what a pause that died left
  if (::mkdir(snap.c_str(), 0700) != 0) return ErrnoError("mkdir " + snap.string());  // root's alone
  fault::Point("session.pause.after-journal");
  // Spares are containers of this sandbox no one uses yet: they go, as at stop.
  TRY_CTX(StopSpares(containers_, dir), "session " + id);
  // The image carries the session's container only: the contexts' end here and run again at
  // resume from what stays of them on the host (context_pause.h).
  TRY_CTX(EndContextContainers(containers_, dir), "session " + id);
  fault::Point("session.pause.after-contexts");
  if (auto s = containers_.Checkpoint(r.container_id, snap); !s) {
    (void)fs::RemoveAll(snap);
    // A checkpoint that failed with the sandbox still up: its contexts run again (the relay
    // never stopped and keeps their secrets' values).
    if (auto st = containers_.State(r.container_id); st && st->status == runtime::ContainerStatus::kRunning)
      if (auto c = RebuildContexts(containers_, dir, r, /*new_relay=*/false); !c) log::Warn("session " + id + ": " + c.error().msg);
    return s.error().Wrap("session " + id + ": checkpoint");
  }
  fault::Point("session.pause.after-checkpoint");
  // The sandbox has ended: its relay (charged below its cgroups) and runtime record go.
  TRY_CTX(ReleaseRelay(dir), "session " + id + ": relay");
  auto d = containers_.Delete(r.container_id, /*force=*/true);
  if (!d && d.error().err_no != ENOENT) return d.error().Wrap("session " + id);
  if (r.network == NetworkMode::kProxy) TRY_CTX(StopSessionRelay(NetworkPaths(dir)), "session " + id + ": stop relay");
  r.state = SessionState::kPaused;
  TRY(Save(r));
  (void)AppendAudit(r.audit, "pause",
                    {{"session", id}, {"backend", r.backend}, {"snapshot_bytes", ImageBytes(snap)},
                     {"duration_ms", Millis(started)}});
  r.status = "paused";
  return r;
}

Result<SessionRecord> Sessions::Resume(const std::string& ref) {
  auto id = TRY(Resolve(ref));
  auto lock = TRY(store_.Lock(id));
  auto r = TRY(Load(id));
  if (r.state != SessionState::kPaused) return MakeError("session " + id + " is " + r.status + ", not paused: nothing to resume", EINVAL);
  return ResumeLocked(std::move(r));
}

Result<SessionRecord> Sessions::ResumeLocked(SessionRecord r) {
  const std::string id = r.id;
  auto dir = Dir(id);
  auto snap = SnapshotDir(dir);
  if (!fs::Exists(snap))
    return MakeError("session " + id + " is paused but its snapshot is gone (session stop, then start: a fresh boot)", ENOENT);
  auto started = Clock::now();
  // A resume that died may have left a sandbox that never became the session's.
  TRY_CTX(EndContextContainers(containers_, dir), "session " + id);
  auto d = containers_.Delete(r.container_id, /*force=*/true);
  if (!d && d.error().err_no != ENOENT) return d.error().Wrap("session " + id);
  bool proxy = r.network == NetworkMode::kProxy;
  ScopeExit relay_back([&] {
    if (!proxy) return;
    (void)ReleaseRelay(dir);
    (void)StopSessionRelay(NetworkPaths(dir));
  });
  if (proxy) TRY_CTX(StartSessionRelay(NetworkPaths(dir), r.relay_args), "session " + id);
  if (proxy) TRY_CTX(AddressSandboxEnd(NetworkPaths(dir)), "session " + id + ": relay link");
  TRY_CTX(RunContainer(r, snap), "session " + id + ": restore");
  fault::Point("session.resume.after-restore");
  ScopeExit sandbox_back([&] {  // a resume that fails from here leaves no sandbox behind
    (void)EndContextContainers(containers_, dir);
    (void)containers_.Delete(r.container_id, /*force=*/true);
  });
  // The contexts after the relay is up (their secrets are declared to it) and the sandbox runs.
  TRY_CTX(RebuildContexts(containers_, dir, r, /*new_relay=*/true), "session " + id + ": contexts");
  fault::Point("session.resume.after-contexts");
  if (proxy) TRY_CTX(ChargeRelayToSession(r), "session " + id + ": charge the relay to the session");
  r.state = SessionState::kRunning;
  r.last_used = log::NowRfc3339();
  TRY(Save(r));
  relay_back.Dismiss();
  sandbox_back.Dismiss();
  if (auto s = fs::RemoveAll(snap); !s) log::Warn("session " + id + ": " + s.error().msg);
  (void)AppendAudit(r.audit, "resume", {{"session", id}, {"backend", r.backend}, {"duration_ms", Millis(started)}});
  r.status = "running";
  return r;
}

void Sessions::RecoverPause(const std::string& id, const SessionRecord& r, SessionGcReport& rep) {
  auto snap = SnapshotDir(Dir(id));
  if (r.state != SessionState::kPaused && fs::Exists(snap)) {
    // Its sandbox was being saved, and a checkpoint ends it (runsc goes on without us): it is
    // ended now, so that start boots it afresh rather than find one about to go.
    // Its contexts go with it, as at stop (their containers may be ended already).
    auto relay = ReleaseRelay(Dir(id));
    auto c = StopContexts(containers_, Dir(id));
    auto d = containers_.Delete(r.container_id, /*force=*/true);
    auto s = fs::RemoveAll(snap);
    if (relay && c && (d || d.error().err_no == ENOENT) && s)
      rep.removed.push_back("session " + id + ": snapshot and sandbox of a pause that did not finish");
    for (const Status* e : {&relay, &c, &d, &s})
      if (!*e && e->error().err_no != ENOENT) rep.errors.push_back("session " + id + ": " + e->error().msg);
  }
  if (r.state == SessionState::kPaused && containers_.State(r.container_id)) {
    auto c = EndContextContainers(containers_, Dir(id));  // the contexts a resume ran again
    if (!c) rep.errors.push_back("session " + id + ": " + c.error().msg);
    auto s = containers_.Delete(r.container_id, /*force=*/true);
    if (s) rep.removed.push_back("session " + id + ": sandbox of a resume that did not finish");
    else rep.errors.push_back("session " + id + ": " + s.error().msg);
  }
}

}  // namespace sandshim::session
