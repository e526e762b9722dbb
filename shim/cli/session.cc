// `session`: sandboxes for agent platforms (create, exec, list, inspect, stop, start,
// pause, resume, delete, gc).
#include <iomanip>
#include <iostream>

#include "shim/cli/session_common.h"

namespace sandshim::cli {

Result<session::Sessions> OpenSessions(const GlobalOpts& g) { return session::Sessions(TRY(RuntimeOptions(g))); }

boost::json::object SessionJson(const session::SessionRecord& r) {
  auto o = session::RecordToJson(r);
  o["status"] = r.status;
  o.erase("relay_args");  // internal: how to restart the relay
  return o;
}

void PrintSessionTable(const std::vector<session::SessionRecord>& all) {
  std::cout << std::left << std::setw(20) << "ID" << std::setw(16) << "NAME" << std::setw(8) << "BACKEND"
            << std::setw(9) << "STATUS" << std::setw(7) << "EXECS" << std::setw(34) << "LAST USED" << "WORKSPACE\n";
  for (const auto& r : all)
    std::cout << std::setw(20) << r.id << std::setw(16) << (r.name.empty() ? "-" : r.name) << std::setw(8) << r.backend
              << std::setw(9) << r.status << std::setw(7) << r.execs << std::setw(34) << r.last_used << r.workspace
              << "\n";
}

void RegisterSession(Verbs& v) {
  CLI::App* s = v.app.add_subcommand("session", "sandboxes around a workspace, for agent platforms");
  s->require_subcommand(1);
  s->footer(
      "Example:\n"
      "  sandshim session create --rootfs /var/lib/rootfs/python --workspace ~/proj --memory 1g demo\n"
      "  sandshim session exec demo -- python3 -c 'print(1+1)'\n"
      "  sandshim session exec --shell demo -- 'cd src && export DEBUG=1'\n"
      "  sandshim session delete demo\n"
      "Audit log: one JSON line per event in /var/log/sandshim/sessions/<id>.jsonl (config: audit_dir).");
  auto reg = [&](void (*add)(Verbs&, CLI::App*)) { return [&v, s, add] { add(v, s); }; };
  v.AddNamed(1, {{{"create"}, reg(RegisterSessionCreate)},
                 {{"exec"}, reg(RegisterSessionExec)},
                 {{"list"}, reg(RegisterSessionList)},
                 {{"inspect"}, reg(RegisterSessionInspect)},
                 {{"stop", "start"}, reg(RegisterSessionStopStart)},
                 {{"pause", "resume"}, reg(RegisterSessionPause)},
                 {{"snapshot"}, reg(RegisterSessionSnapshot)},
                 {{"delete"}, reg(RegisterSessionDelete)},
                 {{"gc"}, reg(RegisterSessionGc)},
                 {{"secret"}, reg(RegisterSessionSecret)},
                 {{"approve", "reject", "approvals"}, reg(RegisterSessionApprovals)},
                 {{"context"}, reg(RegisterSessionContext)},
                 {{"cp"}, reg(RegisterSessionCp)},
                 {{"files"}, reg(RegisterSessionFiles)}});
}

}  // namespace sandshim::cli
