// The verbs that move a session between states and print it: `session stop` ends its sandbox
// (no process stays) and keeps the session, `session start` runs it again on the same
// backend; `session pause` checkpoints a gVisor sandbox to disk and ends it (no process, no
// memory held), `session resume` restores it as it was (session/session_pause.cc).
#include <iostream>

#include "shim/cli/session_common.h"

namespace sandshim::cli {

using Move = Result<session::SessionRecord> (session::Sessions::*)(const std::string&);

static void AddMove(Verbs& v, CLI::App* parent, const char* verb, const char* help, Move move) {
  auto refs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add(verb, help, [&v, refs, json, move, verb] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    int rc = 0;
    boost::json::array out;
    for (const auto& ref : *refs) {
      auto r = ((*s).*move)(ref);
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

void RegisterSessionStopStart(Verbs& v, CLI::App* parent) {
  AddMove(v, parent, "stop", "end a session's sandbox and keep the session", &session::Sessions::Stop);
  AddMove(v, parent, "start", "run a stopped session's sandbox again", &session::Sessions::Start);
}

void RegisterSessionPause(Verbs& v, CLI::App* parent) {
  AddMove(v, parent, "pause",
          "checkpoint a gVisor session's sandbox to disk and end it (where the runsc can restore: see doctor)",
          &session::Sessions::Pause);
  AddMove(v, parent, "resume", "restore a paused session's sandbox as it was", &session::Sessions::Resume);
}

}  // namespace sandshim::cli
