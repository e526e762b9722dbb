#include "shim/gvisor/exec_caps.h"

#include <algorithm>
#include <string>
#include <vector>

namespace sandshim::runtime {
namespace json = boost::json;

json::object ExecveCaps(json::object process, const json::object* container_caps) {
  const auto* user = process.if_contains("user");
  const auto* uid = user && user->is_object() ? user->get_object().if_contains("uid") : nullptr;
  if (!uid || !uid->is_number() || uid->to_number<int64_t>() == 0) return process;
  json::object caps;
  if (const auto* c = process.if_contains("capabilities"); c && c->is_object()) caps = c->get_object();
  else if (container_caps) caps = *container_caps;
  // The kernel raises an ambient capability only while it is permitted and inheritable
  // (capabilities(7)); runc spec's default lists three ambient ones and no inheritable, so a
  // uid 1000 process of runc's holds none. A session's user did keep them on 2022's runsc.
  auto names = [&](const char* key) {
    std::vector<std::string> out;
    if (const auto* a = caps.if_contains(key); a && a->is_array())
      for (const auto& v : a->get_array())
        if (v.is_string()) out.emplace_back(v.get_string());
    return out;
  };
  auto permitted = names("permitted"), inheritable = names("inheritable");
  json::array ambient;
  for (const auto& c : names("ambient"))
    if (std::find(permitted.begin(), permitted.end(), c) != permitted.end() &&
        std::find(inheritable.begin(), inheritable.end(), c) != inheritable.end())
      ambient.emplace_back(c);
  caps["ambient"] = ambient;
  caps["effective"] = ambient;
  caps["permitted"] = ambient;
  process["capabilities"] = std::move(caps);
  return process;
}

}  // namespace sandshim::runtime
