// `session list`: every session with its backend and live status.
#include "shim/cli/session_common.h"

namespace sandshim::cli {

void RegisterSessionList(Verbs& v, CLI::App* parent) {
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("list", "list sessions", [&v, json] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto all = s->List();
    if (*json) {
      boost::json::array arr;
      for (const auto& r : all) arr.push_back(SessionJson(r));
      PrintJson(arr);
    } else {
      PrintSessionTable(all);
    }
    return 0;
  }, parent);
  sub->add_flag("--json", *json, "print JSON");
}

}  // namespace sandshim::cli
