#include "shim/core/mountinfo.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace sandshim::mountinfo {
namespace {

std::string Unescape(const std::string& s) {
  auto oct = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && oct(s[i + 1]) && oct(s[i + 2]) && oct(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::vector<Entry> Parse(const std::string& text) {
  std::vector<Entry> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, dev, root, mnt, tok, fstype, source, super;
    if (!(f >> id >> parent >> dev >> root >> mnt)) continue;
    while (f >> tok && tok != "-") {
    }
    if (tok != "-" || !(f >> fstype >> source)) continue;
    f >> super;
    out.push_back({dev, Unescape(root), Unescape(mnt), fstype, Unescape(source), super});
  }
  return out;
}

std::vector<std::filesystem::path> MountPointsUnder(const std::vector<Entry>& entries, const std::filesystem::path& dir) {
  std::string prefix = dir.lexically_normal().string();
  if (!prefix.ends_with('/')) prefix += '/';
  std::set<std::string> seen;
  std::vector<std::filesystem::path> out;
  for (const auto& e : entries) {
    auto p = e.mount_point.lexically_normal().string();
    if (p.starts_with(prefix) && seen.insert(p).second) out.emplace_back(p);
  }
  // Deeper first: a mount below another must go before it. Longer paths are never the
  // parents of shorter ones, so ordering by length (then name) is enough.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    auto la = a.string().size(), lb = b.string().size();
    return la != lb ? la > lb : a < b;
  });
  return out;
}

}  // namespace sandshim::mountinfo
