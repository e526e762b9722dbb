#include "shim/core/container_path.h"

namespace sandshim {

std::string CleanContainerPath(const std::string& path) {
  std::string out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(pos, end - pos);
    if (!part.empty() && part != ".") out += "/" + part;
    pos = end + 1;
  }
  return out.empty() ? "/" : out;
}

std::optional<CoveringMount> FindCoveringMount(const std::vector<MountView>& mounts, const std::string& path) {
  std::string p = CleanContainerPath(path);
  // Backwards: a later mount on the same or a deeper destination hides what is under it.
  // The deepest covering destination is not always the answer (a later mount on /a hides an
  // earlier one on /a/b), so the last covering mount in spec order wins, as in the kernel.
  for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) {
    std::string d = CleanContainerPath(it->destination);
    if (d == "/") return CoveringMount{&*it, p.substr(1)};
    if (p == d) return CoveringMount{&*it, ""};
    if (p.size() > d.size() && p.compare(0, d.size(), d) == 0 && p[d.size()] == '/')
      return CoveringMount{&*it, p.substr(d.size() + 1)};
  }
  return std::nullopt;
}

}  // namespace sandshim
