// `session pause` checkpoints a gVisor session's sandbox to disk and ends it (no process, no
// memory held); `session resume` restores it as it was (session/session_pause.cc).
#include <iostream>

#include "shim/cli/session_common.h"

namespace sandshim::cli {

static void AddPauseOrResume(Verbs& v, CLI::App* parent, const char* verb, const char* help, bool pause) {
  auto refs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add(verb, help, [&v, refs, json, pause, verb] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    int rc = 0;
    boost::json::array out;
    for (const auto& ref : *refs) {
      auto r = pause ? s->Pause(ref) : s->Resume(ref);
      if (!r) {
        rc = ExitWith(Status(r.error().Wrap(std::string("session ") + verb + " " + ref)));
        continue;
      }
      if (*json) out.push_back(SessionJson(*r));
      else std::cout << r->id << "\t" << r->status << "\n";
    }
    if (*json) PrintJson(out);
    return rc;
  }, parent);
  sub->add_option("session", *refs, "session ids or names")->required();
  sub->add_flag("--json", *json, "print the sessions as JSON");
}

void RegisterSessionPause(Verbs& v, CLI::App* parent) {
  AddPauseOrResume(v, parent, "pause",
                   "checkpoint a gVisor session's sandbox to disk and end it (where the runsc can restore: see doctor)",
                   true);
  AddPauseOrResume(v, parent, "resume", "restore a paused session's sandbox as it was", false);
}

}  // namespace sandshim::cli
