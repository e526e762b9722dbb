// `session inspect ID|NAME`: the record, the backend and why it was chosen, resource use.
#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/store/layout.h"

namespace sandshim::cli {

void RegisterSessionInspect(Verbs& v, CLI::App* parent) {
  auto ref = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("inspect", "show a session: record, backend, resource use", [&v, ref, json] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto i = s->Inspect(*ref);
    if (!i) return ExitWith(Status(i.error().Wrap("session inspect")));
    auto o = SessionJson(i->record);
    o["backend_reason"] = i->backend_reason;
    // -1 / null: unknown (a stopped sandbox, or a backend that does not report it).
    auto known = [](const std::optional<uint64_t>& v) { return v ? boost::json::value(*v) : boost::json::value(nullptr); };
    o["memory_bytes"] = i->usage.memory_bytes ? boost::json::value(*i->usage.memory_bytes) : boost::json::value(-1);
    o["pids"] = known(i->usage.pids);
    o["cpu_ns"] = known(i->usage.cpu_ns);
    o["workspace_bytes"] = i->workspace_bytes;
    boost::json::array contexts;
    session::SpareCount spares;
    int depth = 0;
    if (auto opts = RuntimeOptions(v.global)) {
      if (auto all = session::Contexts(*opts, *s).List(*ref))
        for (const auto& c : *all) contexts.push_back({{"name", c.name}, {"container_id", c.container_id}, {"status", c.status}});
      // Spare context containers (gVisor, context_spare.h): not contexts, counted apart.
      auto dir = session::RootLayout(opts->root).session(i->record.id);
      spares = session::CountSpares(dir);
      depth = session::AskedSpareDepth(dir);  // 0: not asked for
    }
    o["contexts"] = std::move(contexts);
    o["spare_contexts"] = {{"ready", spares.ready}, {"making", spares.making}, {"depth", depth}};
    if (*json) {
      PrintJson(o, /*pretty=*/true);
      return 0;
    }
    for (const char* k : {"id", "name", "status", "state", "backend", "backend_reason", "layer", "network", "workspace", "rootfs",
                          "created", "last_used", "execs", "exec_failures", "exec_timeouts", "exec_seconds",
                          "memory_bytes", "pids", "cpu_ns", "workspace_bytes", "audit"}) {
      const auto& val = o[k];
      std::cout << k << ": " << (val.is_string() ? std::string(val.as_string()) : boost::json::serialize(val)) << "\n";
    }
    std::cout << "profile: " << boost::json::serialize(o["profile"]) << "\n";
    std::cout << "contexts: " << boost::json::serialize(o["contexts"]) << "\n";
    std::cout << "spare_contexts: " << boost::json::serialize(o["spare_contexts"]) << "\n";
    return 0;
  }, parent);
  sub->add_option("session", *ref, "session id or name")->required();
  sub->add_flag("--json", *json, "print JSON");
}

}  // namespace sandshim::cli
