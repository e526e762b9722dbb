#include "shim/linux/oom.h"

#include <cstdlib>
#include <string>

#include "shim/core/fs.h"

namespace sandshim::native {

std::optional<uint64_t> ParseOomKills(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    // "oom_kill 3", not "oom_kill_disable 0" nor "oom_group_kill 0".
    if (line.rfind("oom_kill ", 0) == 0) return std::strtoull(std::string(line.substr(9)).c_str(), nullptr, 10);
    pos = end + 1;
  }
  return std::nullopt;
}

std::optional<uint64_t> OomKills(const std::vector<std::filesystem::path>& dirs) {
  std::optional<uint64_t> total;
  for (const auto& d : dirs)
    for (const char* f : {"memory.events", "memory.oom_control"}) {
      auto text = fs::ReadFile(d / f);
      if (!text) continue;
      if (auto n = ParseOomKills(*text)) total = total.value_or(0) + *n;
    }
  return total;
}

}  // namespace sandshim::native
