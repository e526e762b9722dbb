// `delete`: remove stopped containers (running ones too with --force), leaving nothing behind.
#include "shim/cli/verbs.h"

namespace sandshim::cli {

struct DeleteArgs {
  std::vector<std::string> ids;
  bool force = false;
};

void RegisterDelete(Verbs& v) {
  auto a = std::make_shared<DeleteArgs>();
  auto* sub = v.Add("delete", "delete containers", [&v, a] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    int rc = 0;
    for (const auto& id : a->ids) {
      auto s = c->Delete(id, a->force);
      if (!s) rc = ExitWith(Status(s.error().Wrap("delete " + id)));
    }
    return rc;
  });
  sub->add_flag("-f,--force", a->force, "kill the container first if it is running");
  sub->add_option("id", a->ids, "container ids")->required();
}

}  // namespace sandshim::cli
