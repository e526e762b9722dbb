// Result<T>: the one error type of sandshim. An Error carries an errno (0 when none applies)
// and a message that each layer prefixes with its context, so the user reads one line such
// as "create abc: runsc create: exit status 1: <stderr tail>". Exceptions never cross a module
// boundary; adapters around Boost.JSON catch and convert them here.
#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sandshim {

struct Error {
  int err_no = 0;
  std::string msg;

  // Returns a copy whose message reads "<ctx>: <msg>".
  Error Wrap(std::string_view ctx) const {
    return Error{err_no, std::string(ctx) + ": " + msg};
  }
};

// An error built from the current errno: "<what>: <strerror>".
Error ErrnoError(std::string_view what, int err = errno);
inline Error MakeError(std::string msg, int err_no = 0) { return Error{err_no, std::move(msg)}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  explicit operator bool() const { return v_.index() == 0; }
  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }
  T value_or(T def) const& { return ok() ? value() : std::move(def); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)), ok_(false) {}  // NOLINT
  explicit operator bool() const { return ok_; }
  bool ok() const { return ok_; }
  void value() const {}
  const Error& error() const& { return err_; }
  Error&& error() && { return std::move(err_); }

 private:
  Error err_;
  bool ok_ = true;
};

using Status = Result<void>;
inline Status Ok() { return {}; }

}  // namespace sandshim

// TRY(expr): evaluate a Result; on error return it from the enclosing function, otherwise
// yield the value. A GNU statement expression, as crun and nsjail rely on.
#define TRY(expr)                                      \
  ({                                                   \
    auto _try_r = (expr);                              \
    if (!_try_r) return std::move(_try_r).error();     \
    std::move(_try_r).value();                         \
  })

// TRY_CTX(expr, ctx): like TRY, but prefixes the error with ctx.
#define TRY_CTX(expr, ctx)                                   \
  ({                                                         \
    auto _try_r = (expr);                                    \
    if (!_try_r) return std::move(_try_r).error().Wrap(ctx); \
    std::move(_try_r).value();                               \
  })
