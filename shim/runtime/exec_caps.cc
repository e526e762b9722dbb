#include "shim/runtime/exec_caps.h"

namespace sandshim::runtime {
namespace json = boost::json;

json::object ExecveCaps(json::object process, const json::object* container_caps) {
  const auto* user = process.if_contains("user");
  const auto* uid = user && user->is_object() ? user->get_object().if_contains("uid") : nullptr;
  if (!uid || !uid->is_number() || uid->to_number<int64_t>() == 0) return process;
  json::object caps;
  if (const auto* c = process.if_contains("capabilities"); c && c->is_object()) caps = c->get_object();
  else if (container_caps) caps = *container_caps;
  json::array ambient;
  if (const auto* a = caps.if_contains("ambient"); a && a->is_array()) ambient = a->get_array();
  caps["effective"] = ambient;
  caps["permitted"] = ambient;
  process["capabilities"] = std::move(caps);
  return process;
}

}  // namespace sandshim::runtime
