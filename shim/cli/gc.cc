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
    return PrintGcReport(report.removed, report.errors, *json, "gc");
  });
  sub->add_flag("--json", *json, "print the report as JSON");
}

}  // namespace sandshim::cli
