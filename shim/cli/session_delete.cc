// `session delete ID...`: stop the sandbox and remove everything of the session; the
// workspace on the host is left as it is.
#include "shim/cli/session_common.h"

namespace sandshim::cli {

void RegisterSessionDelete(Verbs& v, CLI::App* parent) {
  auto ids = std::make_shared<std::vector<std::string>>();
  auto* sub = v.Add("delete", "delete sessions", [&v, ids] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    int rc = 0;
    for (const auto& id : *ids)
      if (auto d = s->Delete(id); !d) rc = ExitWith(Status(d.error().Wrap("session delete " + id)));
    return rc;
  }, parent);
  sub->add_option("id", *ids, "session ids")->required();
}

}  // namespace sandshim::cli
