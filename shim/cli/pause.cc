// `pause` / `resume`: freeze and thaw every process of a container.
#include "shim/cli/verbs.h"

namespace sandshim::cli {

void RegisterPauseResume(Verbs& v) {
  for (bool pause : {true, false}) {
    auto id = std::make_shared<std::string>();
    std::string name = pause ? "pause" : "resume";
    auto* sub = v.Add(name, pause ? "suspend all processes of a container" : "resume a paused container",
                      [&v, id, pause, name] {
                        auto c = OpenContainers(v.global);
                        if (!c) return ExitWith(Status(c.error()));
                        auto s = pause ? c->Pause(*id) : c->Resume(*id);
                        return ExitWith(s ? s : Status(s.error().Wrap(name + " " + *id)));
                      });
    sub->add_option("id", *id, "container id")->required();
  }
}

}  // namespace sandshim::cli
