#include "shim/core/cgroupfs.h"

#include <set>
#include <sstream>

#include "shim/core/fs.h"
#include "shim/core/mountinfo.h"

namespace sandshim::cgroupfs {
namespace {

// v1 superblock options that are not controllers.
bool IsOption(const std::string& o) {
  static const std::set<std::string> kOptions{"rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec",
                                              "none", "all", "noprefix", "clone_children", "xattr",
                                              "cpuset_v2_mode", "favordynmods"};
  return kOptions.contains(o) || o.starts_with("name=") || o.starts_with("release_agent=");
}

}  // namespace

std::string Hierarchy::Key() const {
  if (v2) return "";
  if (!name.empty()) return name;
  return controllers.empty() ? mount.filename().string() : controllers.front();
}

std::vector<Hierarchy> ParseMountinfo(const std::string& mountinfo) {
  std::vector<Hierarchy> out;
  std::set<std::string> seen;  // superblocks (maj:min)
  for (const auto& e : mountinfo::Parse(mountinfo)) {
    if (e.fstype != "cgroup" && e.fstype != "cgroup2") continue;
    if (!seen.insert(e.dev).second) continue;
    Hierarchy h{.mount = e.mount_point, .v2 = e.fstype == "cgroup2", .root = e.root};
    if (!h.v2) {
      std::istringstream opts(e.super_options);
      std::string o;
      while (std::getline(opts, o, ',')) {
        if (o.starts_with("name=")) h.name = o.substr(5);
        else if (!IsOption(o)) h.controllers.push_back(o);
      }
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<Hierarchy> Hierarchies() {
  auto hs = ParseMountinfo(fs::ReadFile("/proc/self/mountinfo").value_or(""));
  for (auto& h : hs)
    if (h.v2) {
      std::istringstream in(fs::ReadFile(h.mount / "cgroup.controllers").value_or(""));
      std::string c;
      while (in >> c) h.controllers.push_back(c);
    }
  return hs;
}

OwnCgroups ParseProcCgroup(const std::string& text) {
  OwnCgroups out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // "4:memory:/process_api/95f2…" -> memory -> /process_api/95f2…
    auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string path = line.substr(b + 1);
    if (path == "/") continue;
    if (b == a + 1) {  // "0::/path": the v2 hierarchy
      out[""] = path;
      continue;
    }
    std::istringstream ctrls(line.substr(a + 1, b - a - 1));
    std::string c;
    while (std::getline(ctrls, c, ',')) out[c.starts_with("name=") ? c.substr(5) : c] = path;
  }
  return out;
}

OwnCgroups Own() { return ParseProcCgroup(fs::ReadFile("/proc/self/cgroup").value_or("")); }

std::filesystem::path OwnDir(const Hierarchy& h, const OwnCgroups& own) {
  auto it = own.find(h.Key());
  if (it == own.end()) return h.mount;
  // The mount shows the cgroup h.root and what is below it: our cgroup is found relative
  // to that (in a container whose cgroup is mounted as its root, "/" is h.root).
  std::filesystem::path mine(it->second), root(h.root);
  auto rel = mine.lexically_relative(root);
  if (rel.empty() || rel.string().starts_with("..")) rel = mine.relative_path();
  if (rel == ".") return h.mount;
  return h.mount / rel;
}

std::filesystem::path DirOf(const Hierarchy& h, const OwnCgroups& own, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return h.mount / p.relative_path();
  return OwnDir(h, own) / p;
}

}  // namespace sandshim::cgroupfs
