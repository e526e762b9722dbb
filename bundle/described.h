// Records as described structs (BOOST_DESCRIBE_STRUCT): the member list is written once, and
// both directions follow it. Writing uses Boost.JSON's value_from; reading goes through
// json_field.h rather than try_value_to, so a mistyped field is an error that names it
// ("state.json: backend_data.flags[0]: not a string") instead of a bare error code. An absent
// field keeps the member's default (records written before the field existed).
#pragma once

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <boost/mp11.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bundle/json_field.h"
#include "shim/core/proc.h"

namespace sandshim::bundle {

// Readers per member type. A described struct may add overloads for its own types (enums) in
// its namespace: they are found by argument-dependent lookup.
inline Status ReadMember(const Fields& f, const char* key, std::string& dst) {
  dst = TRY(f.StringOr(key, dst));
  return Ok();
}
inline Status ReadMember(const Fields& f, const char* key, bool& dst) {
  dst = TRY(f.BoolOr(key, dst));
  return Ok();
}
inline Status ReadMember(const Fields& f, const char* key, std::vector<std::string>& dst) {
  if (f.Has(key)) dst = TRY(f.Strings(key));
  return Ok();
}
inline Status ReadMember(const Fields& f, const char* key, boost::json::object& dst) {
  if (auto o = TRY(f.Object(key))) dst = o->raw();
  return Ok();
}
inline Status ReadMember(const Fields& f, const char* key, double& dst) {
  const auto* v = f.raw().if_contains(key);
  if (!v || v->is_null()) return Ok();
  if (!v->is_number()) return f.Wrong(key, "not a number");
  dst = v->to_number<double>();
  return Ok();
}
template <class T>
  requires std::is_integral_v<T> && (!std::is_same_v<T, bool>)
Status ReadMember(const Fields& f, const char* key, T& dst) {
  dst = TRY(f.NumberOr<T>(key, dst));
  return Ok();
}
inline Status ReadMember(const Fields& f, const char* key, std::filesystem::path& dst) {
  dst = TRY(f.StringOr(key, dst.string()));
  return Ok();
}
// A string-to-string map (annotations): every value a string.
inline Status ReadMember(const Fields& f, const char* key, std::map<std::string, std::string>& dst) {
  auto o = TRY(f.Object(key));
  if (!o) return Ok();
  dst.clear();
  for (const auto& kv : o->raw()) {
    if (!kv.value().is_string()) return o->Wrong(kv.key(), "not a string");
    dst[std::string(kv.key())] = std::string(kv.value().get_string());
  }
  return Ok();
}
// A process by pid and start time: {"pid": N, "start": N}.
inline Status ReadMember(const Fields& f, const char* key, proc::ProcessId& dst) {
  if (auto o = TRY(f.Object(key))) {
    dst.pid = TRY(o->NumberOr<pid_t>("pid", 0));
    dst.start = TRY(o->NumberOr<uint64_t>("start", 0));
  }
  return Ok();
}

// Writers per member type: value_from, but for the types Boost.JSON does not know.
template <class T>
boost::json::value WriteMember(const T& v) {
  return boost::json::value_from(v);
}
inline boost::json::value WriteMember(const std::filesystem::path& p) { return boost::json::value(p.string()); }
inline boost::json::value WriteMember(const proc::ProcessId& p) {
  return boost::json::object{{"pid", p.pid}, {"start", p.start}};
}

template <class T>
Result<T> ReadDescribed(const Fields& f, T out = {}) {
  std::optional<Error> err;
  boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_public>>([&](auto d) {
    if (err) return;
    if (auto s = ReadMember(f, d.name, out.*d.pointer); !s) err = s.error();
  });
  if (err) return *err;
  return out;
}

// Each described member under its own name, converted with WriteMember (value_from, so a
// described struct may give its enums a tag_invoke(value_from_tag, ...) in its namespace).
template <class T>
boost::json::object WriteDescribed(const T& v) {
  boost::json::object o;
  boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_public>>(
      [&](auto d) { o[d.name] = WriteMember(v.*d.pointer); });
  return o;
}

}  // namespace sandshim::bundle
