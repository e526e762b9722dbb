// `session list`: every session with its backend and live status.
#include <iomanip>
#include <iostream>

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
      return 0;
    }
    std::cout << std::left << std::setw(24) << "ID" << std::setw(10) << "BACKEND" << std::setw(10) << "STATUS"
              << std::setw(32) << "LAST USED" << "WORKSPACE\n";
    for (const auto& r : all)
      std::cout << std::setw(24) << r.id << std::setw(10) << r.backend << std::setw(10) << r.status << std::setw(32)
                << r.last_used << r.workspace << "\n";
    return 0;
  }, parent);
  sub->add_flag("--json", *json, "print JSON");
}

}  // namespace sandshim::cli
