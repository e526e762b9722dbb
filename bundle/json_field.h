// Strict readers for JSON fields: a missing field reads as absent, a field of the wrong type is
// an error that names it ("config.json: process.user.uid: not a number"), never a default.
// This is the one place where a JSON number becomes a C++ integer: negative, fractional or
// out-of-range values are refused here for every caller (spec, process files, records), so no
// two helpers can disagree on what "-1" means for a uid.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::bundle {

// An error for the field at `path` in the document `doc`: "<doc>: <path>: <why>".
Error FieldError(std::string_view doc, std::string_view path, std::string_view why);

// A JSON value converted to an integer of type T, or an error naming `path`.
Result<int64_t> IntegerIn(const boost::json::value& v, int64_t lo, int64_t hi, std::string_view doc,
                          std::string_view path);
Result<uint64_t> UnsignedIn(const boost::json::value& v, uint64_t hi, std::string_view doc, std::string_view path);

template <class T>
Result<T> NumberAs(const boost::json::value& v, std::string_view doc, std::string_view path) {
  if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(TRY(UnsignedIn(v, std::numeric_limits<T>::max(), doc, path)));
  } else {
    return static_cast<T>(
        TRY(IntegerIn(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), doc, path)));
  }
}

// A JSON object with where it was found, so every reader can name the field it refuses.
class Fields {
 public:
  Fields(const boost::json::object& o, std::string doc, std::string path = "")
      : o_(&o), doc_(std::move(doc)), path_(std::move(path)) {}

  const boost::json::object& raw() const { return *o_; }
  const std::string& doc() const { return doc_; }
  std::string PathOf(std::string_view key) const;
  bool Has(std::string_view key) const { return o_->contains(key); }

  Result<std::optional<std::string>> String(std::string_view key) const;
  Result<std::optional<bool>> Bool(std::string_view key) const;
  template <class T>
  Result<std::optional<T>> Number(std::string_view key) const {
    const auto* v = Present(key);
    if (!v) return std::optional<T>();
    return std::optional<T>(TRY(NumberAs<T>(*v, doc_, PathOf(key))));
  }
  template <class T>
  Result<std::vector<T>> Numbers(std::string_view key) const {
    std::vector<T> out;
    const auto* a = TRY(Array(key));
    if (!a) return out;
    for (size_t i = 0; i < a->size(); ++i) out.push_back(TRY(NumberAs<T>((*a)[i], doc_, Indexed(key, i))));
    return out;
  }
  Result<std::vector<std::string>> Strings(std::string_view key) const;
  Result<std::optional<Fields>> Object(std::string_view key) const;
  // An array of objects; each element's path is key[i].
  Result<std::vector<Fields>> Objects(std::string_view key) const;
  Result<const boost::json::array*> Array(std::string_view key) const;

  // Shorthands with a default for an absent field (a present, mistyped one is still an error).
  Result<std::string> StringOr(std::string_view key, std::string def = "") const {
    return TRY(String(key)).value_or(std::move(def));
  }
  Result<bool> BoolOr(std::string_view key, bool def = false) const { return TRY(Bool(key)).value_or(def); }
  template <class T>
  Result<T> NumberOr(std::string_view key, T def) const {
    return TRY(Number<T>(key)).value_or(def);
  }
  Error Wrong(std::string_view key, std::string_view why) const { return FieldError(doc_, PathOf(key), why); }

 private:
  // The value at key, or nullptr when absent (JSON null counts as absent, as Go's decoder reads it).
  const boost::json::value* Present(std::string_view key) const;
  std::string Indexed(std::string_view key, size_t i) const;

  const boost::json::object* o_;
  std::string doc_, path_;
};

}  // namespace sandshim::bundle
