// `gc`: remove what crashed creators and killed sandshims left behind. Safe while other verbs
// run; running it twice in a row removes nothing the second time.
#include <iostream>

#include "shim/cli/verbs.h"

namespace sandshim::cli {

void RegisterGc(Verbs& v) {
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("gc", "remove orphaned containers and sandboxes", [&v, json] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    auto report = c->Gc();
    if (*json) {
      boost::json::array removed, errors;
      for (const auto& r : report.removed) removed.emplace_back(r);
      for (const auto& e : report.errors) errors.emplace_back(e);
      PrintJson(boost::json::object{{"removed", removed}, {"errors", errors}});
    } else {
      for (const auto& r : report.removed) std::cout << "removed " << r << "\n";
      for (const auto& e : report.errors) std::cerr << "sandshim: gc: " << e << "\n";
    }
    return report.errors.empty() ? 0 : 1;
  });
  sub->add_flag("--json", *json, "print the report as JSON");
}

}  // namespace sandshim::cli
