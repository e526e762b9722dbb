#include "shim/session/store/usage.h"

#include <initializer_list>
#include <string_view>

#include "bundle/json_field.h"

namespace sandshim::session {
namespace json = boost::json;

// The value at a path of keys, as an unsigned integer, or nullopt.
static std::optional<uint64_t> At(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::object* cur = &o;
  const json::value* v = nullptr;
  for (auto key : path) {
    if (!cur) return std::nullopt;
    v = cur->if_contains(key);
    if (!v) return std::nullopt;
    cur = v->if_object();
  }
  auto n = bundle::NumberAs<uint64_t>(*v, "stats", "");
  return n ? std::optional(*n) : std::nullopt;
}

ResourceUsage UsageFromStats(const json::value& stats) {
  ResourceUsage u;
  const auto* top = stats.if_object();
  if (!top) return u;
  const auto* data = top->if_contains("data");
  const auto& o = data && data->is_object() ? data->get_object() : *top;
  u.memory_bytes = At(o, {"memory", "usage", "usage"});
  u.oom_kills = At(o, {"memory", "oom_kill"});
  u.pids = At(o, {"pids", "current"});
  u.cpu_ns = At(o, {"cpu", "usage", "total"});
  return u;
}

}  // namespace sandshim::session
