#include "shim/core/result.h"

#include <cstring>

namespace sandshim {

Error ErrnoError(std::string_view what, int err) {
  return Error{err, std::string(what) + ": " + std::strerror(err)};
}

}  // namespace sandshim
