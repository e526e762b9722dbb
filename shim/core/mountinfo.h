// /proc/<pid>/mountinfo, parsed once for everyone who reads it: the cgroup model
// (cgroupfs.h) and the forced teardown of a session, which unmounts whatever is left below
// its directory when its journal cannot say what it mounted.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sandshim::mountinfo {

// One line: "<id> <parent> <maj:min> <root> <mountpoint> <opts> <optional...> - <fstype> <source> <superopts>",
// paths unescaped (mountinfo writes space, tab, newline and backslash as \ooo).
struct Entry {
  std::string dev;  // maj:min of the superblock
  std::string root;
  std::filesystem::path mount_point;
  std::string fstype, source, super_options;
};

// Every well-formed line, in order (pure).
std::vector<Entry> Parse(const std::string& text);
// The mount points strictly below dir, deepest first (the order to unmount them in), each
// once (pure).
std::vector<std::filesystem::path> MountPointsUnder(const std::vector<Entry>& entries, const std::filesystem::path& dir);

}  // namespace sandshim::mountinfo
