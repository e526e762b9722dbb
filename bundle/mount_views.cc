#include "bundle/mount_views.h"

#include <algorithm>

namespace sandshim::bundle {

std::vector<MountView> MountViews(const Spec& spec, const std::filesystem::path& bundle_dir) {
  std::vector<MountView> out;
  for (const auto& m : spec.mounts) {
    MountView v{m.destination, m.source, m.type == "bind"};
    v.bind = v.bind || std::ranges::any_of(m.options, [](const std::string& s) { return s == "bind" || s == "rbind"; });
    if (!v.source.empty() && v.source[0] != '/') v.source = (bundle_dir / v.source).string();
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace sandshim::bundle
