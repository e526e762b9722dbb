#include "bundle/json_field.h"

namespace sandshim::bundle {
namespace json = boost::json;

Error FieldError(std::string_view doc, std::string_view path, std::string_view why) {
  return MakeError(std::string(doc) + ": " + std::string(path) + ": " + std::string(why), EINVAL);
}

// Boost.JSON keeps an integer literal as int64 (uint64 above INT64_MAX) and anything with a
// fraction or exponent as a double: only the first two are integers here.
Result<int64_t> IntegerIn(const json::value& v, int64_t lo, int64_t hi, std::string_view doc, std::string_view path) {
  if (!v.is_number()) return FieldError(doc, path, "not a number");
  if (v.is_double()) return FieldError(doc, path, "not an integer");
  if (v.is_uint64() || v.get_int64() > hi || v.get_int64() < lo) {
    if (lo == 0 && v.is_int64() && v.get_int64() < 0) return FieldError(doc, path, "must not be negative");
    return FieldError(doc, path, "out of range");
  }
  return v.get_int64();
}

Result<uint64_t> UnsignedIn(const json::value& v, uint64_t hi, std::string_view doc, std::string_view path) {
  if (!v.is_number()) return FieldError(doc, path, "not a number");
  if (v.is_double()) return FieldError(doc, path, "not an integer");
  if (v.is_int64() && v.get_int64() < 0) return FieldError(doc, path, "must not be negative");
  uint64_t u = v.is_uint64() ? v.get_uint64() : static_cast<uint64_t>(v.get_int64());
  if (u > hi) return FieldError(doc, path, "out of range");
  return u;
}

std::string Fields::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string Fields::Indexed(std::string_view key, size_t i) const {
  return PathOf(key) + "[" + std::to_string(i) + "]";
}

const json::value* Fields::Present(std::string_view key) const {
  const auto* v = o_->if_contains(key);
  return (v && !v->is_null()) ? v : nullptr;
}

Result<std::optional<std::string>> Fields::String(std::string_view key) const {
  const auto* v = Present(key);
  if (!v) return std::optional<std::string>();
  if (!v->is_string()) return Wrong(key, "not a string");
  return std::optional<std::string>(std::string(v->get_string()));
}

Result<std::optional<bool>> Fields::Bool(std::string_view key) const {
  const auto* v = Present(key);
  if (!v) return std::optional<bool>();
  if (!v->is_bool()) return Wrong(key, "not a boolean");
  return std::optional<bool>(v->get_bool());
}

Result<const json::array*> Fields::Array(std::string_view key) const {
  const auto* v = Present(key);
  if (!v) return static_cast<const json::array*>(nullptr);
  if (!v->is_array()) return Wrong(key, "not an array");
  return &v->get_array();
}

Result<std::vector<std::string>> Fields::Strings(std::string_view key) const {
  std::vector<std::string> out;
  const auto* a = TRY(Array(key));
  if (!a) return out;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!(*a)[i].is_string()) return FieldError(doc_, Indexed(key, i), "not a string");
    out.emplace_back((*a)[i].get_string());
  }
  return out;
}

Result<std::optional<Fields>> Fields::Object(std::string_view key) const {
  const auto* v = Present(key);
  if (!v) return std::optional<Fields>();
  if (!v->is_object()) return Wrong(key, "not an object");
  return std::optional<Fields>(Fields(v->get_object(), doc_, PathOf(key)));
}

Result<std::vector<Fields>> Fields::Objects(std::string_view key) const {
  std::vector<Fields> out;
  const auto* a = TRY(Array(key));
  if (!a) return out;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!(*a)[i].is_object()) return FieldError(doc_, Indexed(key, i), "not an object");
    out.emplace_back((*a)[i].get_object(), doc_, Indexed(key, i));
  }
  return out;
}

}  // namespace sandshim::bundle
