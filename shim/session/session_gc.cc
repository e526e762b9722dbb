// Sessions::Gc and the metrics snapshot: the whole-store passes over sessions.
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/session/store/audit.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/sessions.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

SessionGcReport Sessions::Gc(std::optional<std::chrono::milliseconds> idle) {
  SessionGcReport rep;
  double now = EpochSeconds(log::NowRfc3339());
  for (const auto& id : store_.List()) {
    auto lock = store_.TryLock(id);
    if (!lock) continue;  // busy (being created, used or deleted) or already gone
    std::string why;
    auto r = Load(id);
    if (!fs::Exists(Dir(id) / layout::kRecord)) why = "half-made";
    else if (idle && r && now - EpochSeconds(r->last_used) > static_cast<double>(idle->count()) / 1000.0)
      why = "idle since " + r->last_used;
    if (why.empty()) {
      // A live session whose journal this gc cannot read: said, not skipped in silence (its
      // contexts and spares cannot be told half-made); `session delete --force` removes it.
      if (auto j = SessionJournal::Load(Dir(id) / layout::kJournal); !j) {
        rep.errors.push_back("session " + id + ": " + j.error().msg + " (left as it is; session delete --force removes it)");
        continue;
      }
      if (r) RecoverPause(id, *r, rep);  // a pause or resume that died
      auto gone = GcContexts(containers_, Dir(id), rep.errors);  // contexts whose create died
      rep.removed.insert(rep.removed.end(), gone.begin(), gone.end());
      gone = GcSpares(containers_, Dir(id), rep.errors);  // after: a dead claim's context undoes its spare
      rep.removed.insert(rep.removed.end(), gone.begin(), gone.end());
      continue;
    }
    // A spare being made: its refill would wait for our session lock (lock order); next gc.
    if (auto refill = TryLockRefill(Dir(id)); refill && !*refill && fs::Exists(SparesDir(Dir(id)))) continue;
    fault::Point("session.gc.before-replay");
    if (auto s = Teardown(id, /*force=*/true); !s) {
      rep.errors.push_back("session " + id + ": " + s.error().msg);
      continue;
    }
    rep.removed.push_back("session " + id + " (" + why + ")");
    if (r) (void)AppendAudit(r->audit, "delete", {{"session", id}, {"backend", r->backend}, {"reason", why}});
  }
  GcSnapshotLeftovers(rep);
  // What sessions leave to the runtime (their containers) is the runtime gc's business.
  auto rt = containers_.Gc();
  rep.removed.insert(rep.removed.end(), rt.removed.begin(), rt.removed.end());
  rep.errors.insert(rep.errors.end(), rt.errors.begin(), rt.errors.end());
  return rep;
}

std::vector<SessionSample> Sessions::Samples() {
  std::vector<SessionSample> out;
  for (auto& r : List()) {
    auto i = Inspect(r.id);
    auto contexts = CountContexts(Dir(r.id));
    SessionSample s{std::move(r)};
    s.contexts = contexts;
    s.spare_contexts = CountSpares(Dir(s.record.id)).ready;
    if (i) {
      s.workspace_bytes = i->workspace_bytes;
      s.memory_bytes = i->usage.memory_bytes ? static_cast<int64_t>(*i->usage.memory_bytes) : -1;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace sandshim::session
