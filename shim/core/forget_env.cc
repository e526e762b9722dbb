#include "shim/core/forget_env.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace sandshim::proc {

void ForgetEnv(const std::string& key) {
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, key.c_str(), key.size()) == 0 && (*e)[key.size()] == '=') {
      // volatile: the bytes are never read again, and the compiler must not drop the writes.
      for (volatile char* c = *e + key.size() + 1; *c; ++c) *c = '\0';
    }
  ::unsetenv(key.c_str());
}

}  // namespace sandshim::proc
