// `start`: run the process of a created container.
#include "shim/cli/verbs.h"

namespace sandshim::cli {

void RegisterStart(Verbs& v) {
  auto id = std::make_shared<std::string>();
  auto* sub = v.Add("start", "start a created container", [&v, id] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    auto s = c->Start(*id);
    return ExitWith(s ? s : Status(s.error().Wrap("start " + *id)));
  });
  sub->add_option("id", *id, "container id")->required();
}

}  // namespace sandshim::cli
