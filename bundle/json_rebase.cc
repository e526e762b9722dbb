#include "bundle/json_rebase.h"

namespace sandshim::bundle {
namespace json = boost::json;

static bool Rebase(json::string& s, const std::string& from, const std::string& to) {
  std::string_view v(s);
  if (from.empty() || !v.starts_with(from)) return false;
  if (v.size() > from.size() && v[from.size()] != '/') return false;  // /a/bc is not below /a/b
  s = to + std::string(v.substr(from.size()));
  return true;
}

int RebasePaths(json::value& v, const std::string& from, const std::string& to) {
  int n = 0;
  if (v.is_string()) return Rebase(v.as_string(), from, to) ? 1 : 0;
  if (v.is_array())
    for (auto& e : v.as_array()) n += RebasePaths(e, from, to);
  if (v.is_object())
    for (auto& kv : v.as_object()) n += RebasePaths(kv.value(), from, to);
  return n;
}

}  // namespace sandshim::bundle
