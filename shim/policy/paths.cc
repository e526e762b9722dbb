#include "shim/policy/paths.h"

#include <algorithm>

namespace sandshim::policy {

constexpr size_t kMaxCwds = 16;  // more possible directories than this: unknown

std::string NormalizePath(std::string_view p) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    auto part = p.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (auto part : parts) (out += '/') += part;
  return out.empty() ? "/" : out;
}

static bool Match(std::string_view g, std::string_view s) {
  if (g.empty()) return s.empty();
  if (g.substr(0, 2) == "**") {
    auto rest = g.substr(2);
    // "/x/**" also names "/x" itself: "**" may swallow the '/' before it.
    for (size_t k = 0; k <= s.size(); ++k)
      if (Match(rest, s.substr(k))) return true;
    return false;
  }
  if (g[0] == '*') {
    for (size_t k = 0; k <= s.size(); ++k) {
      if (Match(g.substr(1), s.substr(k))) return true;
      if (k < s.size() && s[k] == '/') break;
    }
    return false;
  }
  if (s.empty()) return false;
  if (g[0] == '?') return s[0] != '/' && Match(g.substr(1), s.substr(1));
  return g[0] == s[0] && Match(g.substr(1), s.substr(1));
}

bool GlobMatch(std::string_view glob, std::string_view path) {
  if (glob.size() >= 3 && glob.substr(glob.size() - 3) == "/**" && Match(glob.substr(0, glob.size() - 3), path)) return true;
  return Match(glob, path);
}

bool MayMatchBelow(std::string_view glob, std::string_view dir) {
  std::string below = dir == "/" ? "/" : std::string(dir) + "/";
  auto wild = glob.find_first_of("*?[");
  auto literal = glob.substr(0, wild);
  if (literal.rfind(below, 0) == 0) return true;                         // /etc/shadow below /etc
  return wild != std::string_view::npos && below.rfind(literal, 0) == 0;  // /w/**/.env below /w/src
}

bool IsHarmlessDevice(std::string_view p) {
  return p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin" || p == "/dev/tty" ||
         p.rfind("/dev/fd/", 0) == 0;
}

void CwdSet::Cd(const std::optional<std::string>& target) {
  if (!target || target->empty() || *target == "-") {
    unknown_ = true;  // $HOME, $OLDPWD or a variable
    return;
  }
  auto next = Resolve(*target);
  unknown_ |= next.unknown;
  for (auto& d : next.paths)
    if (std::find(dirs_.begin(), dirs_.end(), d) == dirs_.end()) dirs_.push_back(std::move(d));
  if (dirs_.size() > kMaxCwds) {
    unknown_ = true;
    dirs_.clear();
  }
}

void CwdSet::Merge(const CwdSet& other) {
  unknown_ |= other.unknown_;
  for (const auto& d : other.dirs_)
    if (std::find(dirs_.begin(), dirs_.end(), d) == dirs_.end()) dirs_.push_back(d);
  if (dirs_.size() > kMaxCwds) {
    unknown_ = true;
    dirs_.clear();
  }
}

Resolution CwdSet::Resolve(std::string_view p) const {
  if (!p.empty() && p.front() == '/') return {{NormalizePath(p)}, false};
  Resolution r{{}, unknown_};
  for (const auto& d : dirs_) r.paths.push_back(NormalizePath(d + "/" + std::string(p)));
  return r;
}

}  // namespace sandshim::policy
