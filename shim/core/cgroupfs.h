// The cgroup filesystems of this host as one model, for the native runtime (making and
// removing a container's cgroups) and for the runsc leftovers sweep (removing what runsc
// left): which hierarchies are mounted where (mountinfo), which cgroup this process is in
// (/proc/self/cgroup), and so where a cgroupsPath lives in each. v1, v2, and the hybrid
// layout this host has (v1 controllers plus an empty cgroup2 at /sys/fs/cgroup/unified).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sandshim::cgroupfs {

struct Hierarchy {
  std::filesystem::path mount;           // /sys/fs/cgroup/memory, or /sys/fs/cgroup for v2
  std::vector<std::string> controllers;  // v1: from its options; v2: its cgroup.controllers
  bool v2 = false;
  std::string root = "/";                // the cgroup mounted there (mountinfo's root field)
  std::string name;                      // a named v1 hierarchy's name (name=systemd)
  // Its key in OwnCgroups: "" for v2, the name of a named hierarchy, else its first controller.
  std::string Key() const;
};

// One hierarchy per cgroup filesystem in /proc/<pid>/mountinfo text, in order, the first
// mount of each (a hierarchy mounted twice is one); v2 controllers left empty (pure).
std::vector<Hierarchy> ParseMountinfo(const std::string& mountinfo);
// This process's hierarchies, v2 with the controllers its root offers (none in the hybrid
// layout, where v1 owns them all).
std::vector<Hierarchy> Hierarchies();

// This process's cgroup per Key() where it is not "/" (pure, from /proc/self/cgroup text);
// every controller of a v1 line is a key.
using OwnCgroups = std::map<std::string, std::string>;
OwnCgroups ParseProcCgroup(const std::string& text);
OwnCgroups Own();

// The directory of our own cgroup in h (the mount itself when that is its root).
std::filesystem::path OwnDir(const Hierarchy& h, const OwnCgroups& own);
// Where cgroupsPath `path` lives in h, as runc places it: an absolute path from the
// hierarchy's root, a relative one (docker's --cgroup-parent without a slash) below our own.
std::filesystem::path DirOf(const Hierarchy& h, const OwnCgroups& own, const std::string& path);

}  // namespace sandshim::cgroupfs
