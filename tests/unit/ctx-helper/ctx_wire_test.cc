// sandshim-ctx's request format (ctx-helper/wire.h): what the broker accepts from a client.
#include <doctest/doctest.h>

#include "ctx-helper/wire.h"

namespace sandshim::ctx {

TEST_CASE("broker request: round trip, strict reading") {
  Request r;
  r.uid = 2000;
  r.gid = 55;
  r.groups = {5, 4294967295u};
  r.cwd = "/work space";
  r.tty = true;
  r.cap_eff = 0x20000420;
  r.cap_bound = ~0ull;
  r.argv = {"sh", "-c", "echo 'a b'", ""};
  r.env = {"A=1", "EMPTY="};
  Request back;
  REQUIRE(Decode(Encode(r), back));
  CHECK(back.uid == 2000);
  CHECK(back.gid == 55);
  CHECK(back.groups == r.groups);
  CHECK(back.cwd == r.cwd);
  CHECK(back.tty);
  CHECK_FALSE(back.end_leftovers);
  CHECK_FALSE(back.no_new_privs);
  CHECK(back.cap_eff == 0x20000420);
  CHECK(back.cap_bound == ~0ull);
  CHECK(back.argv == r.argv);
  CHECK(back.env == r.env);

  auto bytes = Encode(r);
  CHECK_FALSE(Decode(bytes.substr(0, bytes.size() - 1), back));  // truncated
  CHECK_FALSE(Decode(bytes + "x", back));                          // trailing bytes
  Request none = r;
  none.argv.clear();
  CHECK_FALSE(Decode(Encode(none), back));  // no command
  std::string huge_uid = "100000000" + bytes.substr(bytes.find('\0'));
  CHECK_FALSE(Decode(huge_uid, back));  // an id over 32 bits
}

TEST_CASE("broker request: the end-leftovers flag beside the terminal's") {
  Request r;
  r.cwd = "/";
  r.argv = {"true"};
  r.end_leftovers = true;
  Request back;
  REQUIRE(Decode(Encode(r), back));
  CHECK(back.end_leftovers);
  CHECK_FALSE(back.tty);
}

}  // namespace sandshim::ctx
