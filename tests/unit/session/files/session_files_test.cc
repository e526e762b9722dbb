// #35: the pure parts of session files (the listing a session prints, the paths it gets) and
// of a workspace seen as the session user's (idmap's OwnerAsUserMap).
#include <doctest/doctest.h>

#include <string>

#include "shim/session/files/files.h"
#include "shim/session/workspace/idmap.h"

using namespace sandshim;
using session::IdExtent;

static std::string Rec(const std::string& head, const std::string& name, const std::string& target = "") {
  return head + "\n" + name + std::string(1, '\0') + target + std::string(1, '\0');
}

TEST_CASE("session files: a listing is parsed strictly, sorted, names as they are") {
  auto all = session::ParseListing(Rec("81a4 5 1700000000 1000 1000", "b.txt") + Rec("41ed 4096 1 0 0", "a dir") +
                                   Rec("a1ff 7 2 1000 1000", "we\nird", "/etc/passwd"));
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].name == "a dir");
  CHECK((*all)[0].type == "dir");
  CHECK((*all)[0].mode == 0755);
  CHECK((*all)[1].name == "b.txt");
  CHECK((*all)[1].size == 5);
  CHECK((*all)[1].mtime == 1700000000);
  CHECK((*all)[2].name == "we\nird");
  CHECK((*all)[2].type == "symlink");
  CHECK((*all)[2].target == "/etc/passwd");
  CHECK(session::ParseListing("")->empty());
  // A session prints what it likes: each malformed shape is an error, never a guess.
  CHECK_FALSE(session::ParseListing("81a4 5 1 2\nx").ok());
  CHECK_FALSE(session::ParseListing(Rec("81a4 5 1 2 3 4", "x")).ok());
  CHECK_FALSE(session::ParseListing(Rec("zz 5 1 2 3", "x")).ok());
  CHECK_FALSE(session::ParseListing(Rec("81a4 5 1 2 3", "../x")).ok());
  CHECK_FALSE(session::ParseListing(Rec("81a4 5 1 2 3", "")).ok());
  CHECK_FALSE(session::ParseListing("81a4 5 1 2 3\nx").ok());
}

TEST_CASE("session files: paths are given as absolute or ./relative, never as an option") {
  CHECK(*session::SessionPath("/workspace/out.txt") == "/workspace/out.txt");
  CHECK(*session::SessionPath("-rf") == "./-rf");
  CHECK(*session::SessionPath("a//b/../c/") == "./a/c");
  CHECK(*session::SessionPath("/workspace/../../etc") == "/etc");  // the session resolves it, in its own view
  CHECK_FALSE(session::SessionPath("").ok());
  CHECK_FALSE(session::SessionPath(std::string("a\0b", 3)).ok());
}

TEST_CASE("workspace owner: the owner is seen as the session's user, the user as the owner") {
  // A root-made workspace, a native session's range at base B.
  const uint32_t B = 0x10000000;
  auto m = session::OwnerAsUserMap(0, 1000, B, 65536);
  CHECK(m == std::vector<IdExtent>{{0, B + 1000, 1}, {1, B + 1, 999}, {1000, B + 0, 1}, {1001, B + 1001, 64535}});
  // A workspace of uid 5000 on gVisor (base 0, every id).
  m = session::OwnerAsUserMap(5000, 1000, 0, UINT32_MAX);
  CHECK(m == std::vector<IdExtent>{{0, 0, 1000}, {1000, 5000, 1}, {1001, 1001, 3999}, {5000, 1000, 1},
                                   {5001, 5001, UINT32_MAX - 5001}});
  // An owner outside the range: mapped alone; on-disk 1000 then means nobody in the session.
  m = session::OwnerAsUserMap(200000, 1000, B, 65536);
  CHECK(m == std::vector<IdExtent>{{0, B, 1000}, {1001, B + 1001, 64535}, {200000, B + 1000, 1}});
  // Every outside id appears once (a valid map), every inside id once.
  uint64_t inside = 0;
  for (const auto& e : session::OwnerAsUserMap(0, 1000, B, 65536)) inside += e.count;
  CHECK(inside == 65536);
}
