// `run`: create and start; in the foreground, wait and exit with the container's status.
#include "shim/cli/create_options.h"

namespace sandshim::cli {

void RegisterRun(Verbs& v) {
  auto o = std::make_shared<CreateOptions>();
  auto* sub = v.Add("run", "create and run a container", [&v, o] {
    auto req = BuildCreateRequest(*o);
    if (!req) return ExitWith(Status(req.error().Wrap("run " + o->id)));
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    // Which backend, and before any state exists, sandshim sealed for it (native).
    auto choice = c->Choose(req->spec);
    if (!choice) return ExitWith(Status(choice.error().Wrap("run " + o->id)));
    runtime::EnsureSealedFor(choice->traits);
    auto status = c->Run(std::move(*req), o->detach);
    if (!status) return ExitWith(Status(status.error().Wrap("run " + o->id)));
    return *status;
  });
  AddCreateOptions(sub, *o);
}

}  // namespace sandshim::cli
