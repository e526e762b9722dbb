// `update`: change a container's resource limits from --resources FILE (or - for stdin).
#include <iostream>
#include <iterator>

#include "bundle/spec.h"
#include "shim/cli/verbs.h"
#include "shim/core/fs.h"

namespace sandshim::cli {

struct UpdateArgs {
  std::string id, resources;
};

void RegisterUpdate(Verbs& v) {
  auto a = std::make_shared<UpdateArgs>();
  auto* sub = v.Add("update", "update a container's resource limits", [&v, a] {
    std::string text;
    if (a->resources == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), {});
    } else if (!a->resources.empty()) {
      auto t = fs::ReadFile(a->resources);
      if (!t) return ExitWith(Status(t.error().Wrap("update")));
      text = *t;
    } else {
      text = "{}";
    }
    auto json = bundle::ParseJson(text, "update --resources");
    if (!json || !json->is_object()) return ExitWith(Status(MakeError("update: --resources must hold a JSON object", EINVAL)));
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    auto s = c->Update(a->id, json->get_object());
    return ExitWith(s ? s : Status(s.error().Wrap("update " + a->id)));
  });
  sub->add_option("-r,--resources", a->resources, "JSON file with linux resources, or - for stdin");
  sub->add_option("id", a->id, "container id")->required();
}

}  // namespace sandshim::cli
