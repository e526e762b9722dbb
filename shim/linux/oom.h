// How many processes of a container the kernel's OOM killer has killed, read from its
// memory cgroup: v2 memory.events ("oom_kill N") or v1 memory.oom_control ("oom_kill N",
// kernels >= 4.13). `events` turns a rise of this count into runc's {"type":"oom"} event.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace sandshim::native {

// The "oom_kill" value of a memory.events / memory.oom_control text (pure); nullopt if absent.
std::optional<uint64_t> ParseOomKills(std::string_view text);
// Summed over the container's hierarchies that report it; nullopt if none does.
std::optional<uint64_t> OomKills(const std::vector<std::filesystem::path>& dirs);

}  // namespace sandshim::native
