// shim/core/mountinfo: the one mountinfo parser, and the mount points a forced session teardown
// unmounts.
#include "shim/core/mountinfo.h"

#include <doctest/doctest.h>

using namespace sandshim;

namespace {
const char* kText =
    "22 1 0:21 / /run rw,nosuid - tmpfs tmpfs rw\n"
    "40 22 0:50 / /run/s/@sessions/a/layer/merged rw - overlay overlay rw,lowerdir=/x\n"
    "41 22 0:4 net:[4026532] /run/s/@sessions/a/netns rw - nsfs nsfs rw\n"
    "42 40 0:51 / /run/s/@sessions/a/layer/merged/sub\\040dir rw - tmpfs tmpfs rw\n"
    "43 22 0:52 / /run/s/@sessions/ab/netns rw - nsfs nsfs rw\n"
    "44 22 0:52 / /run/s/@sessions/a/netns rw - nsfs nsfs rw\n"
    "garbage line\n"
    "30 1 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
}  // namespace

TEST_CASE("mountinfo: fields parsed, escapes decoded, malformed lines skipped") {
  auto e = mountinfo::Parse(kText);
  REQUIRE(e.size() == 7);
  CHECK(e[2].root == "net:[4026532]");
  CHECK(e[2].fstype == "nsfs");
  CHECK(e[3].mount_point == "/run/s/@sessions/a/layer/merged/sub dir");
  CHECK(e[6].super_options == "rw,memory");
  CHECK(e[6].dev == "0:26");
}

TEST_CASE("mountinfo: mount points under a directory, deepest first, each once, not its siblings") {
  auto m = mountinfo::MountPointsUnder(mountinfo::Parse(kText), "/run/s/@sessions/a");
  REQUIRE(m.size() == 3);
  CHECK(m[0] == "/run/s/@sessions/a/layer/merged/sub dir");
  CHECK(m[1] == "/run/s/@sessions/a/layer/merged");
  CHECK(m[2] == "/run/s/@sessions/a/netns");  // twice in the text, once here; "ab" is not below "a"
  CHECK(mountinfo::MountPointsUnder(mountinfo::Parse(kText), "/run/s/@sessions/a/").size() == 3);
}
