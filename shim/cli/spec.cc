// `spec`: write a default config.json into the bundle directory, like `runc spec`.
#include "bundle/default_spec.h"
#include "shim/cli/verbs.h"
#include "shim/core/fs.h"

namespace sandshim::cli {

void RegisterSpec(Verbs& v) {
  auto dir = std::make_shared<std::string>(".");
  auto* sub = v.Add("spec", "write a default config.json", [dir] {
    auto path = std::filesystem::path(*dir) / "config.json";
    if (fs::Exists(path)) return ExitWith(Status(MakeError("spec: " + path.string() + " already exists", EEXIST)));
    std::string text = boost::json::serialize(bundle::DefaultSpec());
    return ExitWith(fs::WriteFileAtomic(path, text + "\n", 0644));
  });
  sub->add_option("-b,--bundle", *dir, "directory to write config.json into");
}

}  // namespace sandshim::cli
