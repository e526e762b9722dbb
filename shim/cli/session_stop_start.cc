// `session stop` ends a session's sandbox (no process stays) and keeps the session;
// `session start` runs it again on the same backend.
#include <iostream>

#include "shim/cli/session_common.h"

namespace sandshim::cli {

static void AddStopOrStart(Verbs& v, CLI::App* parent, const char* verb, const char* help, bool stop) {
  auto refs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add(verb, help, [&v, refs, json, stop, verb] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    int rc = 0;
    boost::json::array out;
    for (const auto& ref : *refs) {
      auto r = stop ? s->Stop(ref) : s->Start(ref);
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
  AddStopOrStart(v, parent, "stop", "end a session's sandbox and keep the session", true);
  AddStopOrStart(v, parent, "start", "run a stopped session's sandbox again", false);
}

}  // namespace sandshim::cli
