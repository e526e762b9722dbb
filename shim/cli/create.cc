// `create`: make a container from a bundle; its process waits until `start`.
#include "shim/cli/create_options.h"

namespace sandshim::cli {

void RegisterCreate(Verbs& v) {
  auto o = std::make_shared<CreateOptions>();
  auto* sub = v.Add("create", "create a container", [&v, o] {
    auto req = BuildCreateRequest(*o);
    if (!req) return ExitWith(Status(req.error().Wrap("create " + o->id)));
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    // Which backend, and before any state exists, sandshim sealed for it (native).
    auto choice = c->Choose(req->spec);
    if (!choice) return ExitWith(Status(choice.error().Wrap("create " + o->id)));
    runtime::EnsureSealedFor(choice->traits);
    auto s = c->Create(std::move(*req));
    return ExitWith(s ? s : Status(s.error().Wrap("create " + o->id)));
  });
  AddCreateOptions(sub, *o);
}

}  // namespace sandshim::cli
