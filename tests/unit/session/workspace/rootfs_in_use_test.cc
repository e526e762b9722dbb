// session::RootfsInUse: what rootfs list/rm/gc keep, read with the session record reader.
#include <doctest/doctest.h>

#include <algorithm>

#include "shim/core/fs.h"
#include "shim/session/workspace/rootfs_in_use.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;

TEST_CASE("rootfs in use: every session's rootfs, read with the record reader; unreadable is an error") {
  testing::TempDir d;
  auto sessions = d.path() / "@sessions";
  std::filesystem::create_directories(sessions / "a");
  std::filesystem::create_directories(sessions / "b");
  std::filesystem::create_directories(sessions / "half-made");  // no record yet: uses nothing
  REQUIRE(fs::WriteFileAtomic(sessions / "a" / "session.json", R"({"id":"a","rootfs":"/cache/k1/rootfs"})", 0600, false).ok());
  REQUIRE(fs::WriteFileAtomic(sessions / "b" / "session.json", R"({"id":"b","rootfs":"/cache/k2/rootfs"})", 0600, false).ok());
  auto used = session::RootfsInUse(d.path());
  REQUIRE(used.ok());
  std::sort(used->begin(), used->end());
  CHECK(*used == std::vector<std::filesystem::path>{"/cache/k1/rootfs", "/cache/k2/rootfs"});
  CHECK(session::RootfsInUse(d.path() / "nothing-here")->empty());
  // Before: a record the CLI's private reader could not parse counted as "uses nothing",
  // and rootfs gc removed the base a live session runs on.
  REQUIRE(fs::WriteFileAtomic(sessions / "b" / "session.json", R"({"id":"b","rootfs":"/cache/k2/rootfs")", 0600, false).ok());
  auto bad = session::RootfsInUse(d.path());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("session.json") != std::string::npos);
}

TEST_CASE("rootfs in use: a warm pool's members keep their base too") {
  testing::TempDir d;
  auto member = d.path() / "@pool" / "py" / "members" / "m-1";
  std::filesystem::create_directories(member);
  std::filesystem::create_directories(d.path() / "@sessions");
  REQUIRE(fs::WriteFileAtomic(member / "session.json", R"({"id":"m-1","rootfs":"/cache/k3/rootfs"})", 0600, false).ok());
  auto used = session::RootfsInUse(d.path());
  REQUIRE(used.ok());
  CHECK(*used == std::vector<std::filesystem::path>{"/cache/k3/rootfs"});
}
