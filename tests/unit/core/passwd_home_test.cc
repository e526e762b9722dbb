#include "shim/core/passwd_home.h"

#include <doctest/doctest.h>

using namespace sandshim;

TEST_CASE("passwd_home: HOME from the container's passwd, as runc sets it") {
  const char* pw = "root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000::/home/user:/bin/sh\nbad line\nnohome:x:7:7::::\n";
  CHECK(HomeFromPasswd(pw, 0) == "/root");
  CHECK(HomeFromPasswd(pw, 1000) == "/home/user");
  CHECK(HomeFromPasswd(pw, 7) == "/");     // an empty home field
  CHECK(HomeFromPasswd(pw, 4242) == "/");  // not listed
  CHECK(HomeFromPasswd("", 0) == "/");
  CHECK(EnvWithHome({"PATH=/bin", "HOME=/mine"}, 0, "/nonexistent") == std::vector<std::string>{"PATH=/bin", "HOME=/mine"});
  CHECK(EnvWithHome({"PATH=/bin"}, 0, "/nonexistent") == std::vector<std::string>{"PATH=/bin", "HOME=/"});
}
