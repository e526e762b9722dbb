#include "bundle/mount_views.h"

#include <algorithm>

namespace sandshim::bundle {

std::vector<MountView> MountViews(const Spec& spec, const std::filesystem::path& bundle_dir) {
  std::vector<MountView> out;
  const auto* mounts = GetArray(spec.doc, "mounts");
  if (!mounts) return out;
  for (const auto& m : *mounts) {
    if (!m.is_object()) continue;
    const auto& o = m.get_object();
    MountView v{GetString(o, "destination"), GetString(o, "source"), GetString(o, "type") == "bind"};
    auto opts = GetStrings(o, "options");
    v.bind = v.bind || std::ranges::any_of(opts, [](const std::string& s) { return s == "bind" || s == "rbind"; });
    if (!v.source.empty() && v.source[0] != '/') v.source = (bundle_dir / v.source).string();
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace sandshim::bundle
