// `session gc [--idle DURATION]`: remove half-made sessions (a create that died) and, with
// --idle, sessions unused for longer than DURATION; then the runtime's own gc. Safe from
// cron while other verbs run: busy sessions are skipped.
#include "bundle/session_profile.h"
#include "shim/cli/session_common.h"
#include "shim/session/pool/pool.h"

namespace sandshim::cli {

void RegisterSessionGc(Verbs& v, CLI::App* parent) {
  auto idle = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("gc", "remove half-made and (with --idle) idle sessions", [&v, idle, json] {
    std::optional<std::chrono::milliseconds> ttl;
    if (!idle->empty()) {
      auto d = bundle::ParseDuration(*idle);
      if (!d) return ExitWith(Status(d.error().Wrap("session gc --idle")));
      ttl = *d;
    }
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto rep = s->Gc(ttl);
    // Warm pools too (docs/POOL.md): interrupted claims, dead, stale and half-made members.
    if (auto opts = RuntimeOptions(v.global))
      for (const auto& n : session::ListPools(opts->root)) {
        auto p = session::Pool(*opts, n).Gc();
        rep.removed.insert(rep.removed.end(), p.removed.begin(), p.removed.end());
        rep.errors.insert(rep.errors.end(), p.errors.begin(), p.errors.end());
      }
    return PrintGcReport(rep.removed, rep.errors, *json, "session gc");
  }, parent);
  sub->add_option("--idle", *idle, "also delete sessions whose last command started longer ago, e.g. 2h");
  sub->add_flag("--json", *json, "print the report as JSON");
}

}  // namespace sandshim::cli
