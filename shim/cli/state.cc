// `state`: the OCI state of a container, as JSON.
#include "shim/cli/verbs.h"
#include "shim/runtime/oci_state.h"

namespace sandshim::cli {

void RegisterState(Verbs& v) {
  auto id = std::make_shared<std::string>();
  auto* sub = v.Add("state", "print the state of a container", [&v, id] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    auto rec = c->State(*id);
    if (!rec) return ExitWith(Status(rec.error()));
    PrintJson(runtime::OciState(*rec), true);
    return 0;
  });
  sub->add_option("id", *id, "container id")->required();
}

}  // namespace sandshim::cli
