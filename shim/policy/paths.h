// Paths as the policy sees them, without touching any filesystem (the paths are the
// sandbox's, not the host's): lexical normalisation, glob matching for file rules, and the
// set of directories a script may be in after its `cd`s.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandshim::policy {

// "/a/./b/../c//" -> "/a/c"; ".." never climbs above "/".
std::string NormalizePath(std::string_view absolute);
// * within one component, ** across components (and "/x/**" matches "/x"), ? one character.
bool GlobMatch(std::string_view glob, std::string_view path);
// Whether the glob may name something below directory `dir` (a recursive read of dir
// reaches it): its literal part lies below dir, or a wildcard starts inside dir.
bool MayMatchBelow(std::string_view glob, std::string_view dir);
// Devices every command may use whatever the file rules say (2>/dev/null, >&2).
bool IsHarmlessDevice(std::string_view path);

// What a path in a command may name: these absolute paths, and (unknown) maybe others.
struct Resolution {
  std::vector<std::string> paths;
  bool unknown = false;
};

// Where the shell may be: every directory it could be in at this point (a `cd` that may
// fail leaves both), and maybe somewhere unknown (--shell's saved directory, a cd to a
// variable).
class CwdSet {
 public:
  CwdSet() = default;  // unknown
  explicit CwdSet(std::string dir) : dirs_{NormalizePath(dir)}, unknown_(false) {}
  // `cd target`; target nullopt: dynamic or absent.
  void Cd(const std::optional<std::string>& target);
  Resolution Resolve(std::string_view p) const;
  // Where the shell may be after one of two histories.
  void Merge(const CwdSet& other);

 private:
  std::vector<std::string> dirs_;
  bool unknown_ = true;
};

}  // namespace sandshim::policy
