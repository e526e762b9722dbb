// Where a session's relay is charged (relay_cgroup.h): a "relay" child of the sandbox's
// memory and pids cgroups (v1) and of its unified cgroup (v2), never of the root cgroup.
#include <doctest/doctest.h>

#include "shim/session/relay_cgroup.h"

using sandshim::session::RelayCgroupDirs;

namespace {
// This host's layout: hybrid, v1 controllers one per mount, cgroup2 at unified.
const char* kMountinfo =
    "30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
    "31 30 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "33 30 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "34 30 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "35 30 0:31 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "36 30 0:32 /nested /mnt/elsewhere rw - cgroup cgroup rw,memory\n";  // not at its root: skipped
}  // namespace

TEST_CASE("relay cgroup: children of the sandbox's memory, pids and unified cgroups") {
  auto dirs = RelayCgroupDirs("8:pids:/sandshim-sess-a\n4:memory:/sandshim-sess-a\n3:cpu,cpuacct:/sandshim-sess-a\n"
                              "0::/sandshim-sess-a\n",
                              kMountinfo);
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0] == "/sys/fs/cgroup/pids/sandshim-sess-a/relay");
  CHECK(dirs[1] == "/sys/fs/cgroup/memory/sandshim-sess-a/relay");
  CHECK(dirs[2] == "/sys/fs/cgroup/unified/sandshim-sess-a/relay");
}

TEST_CASE("relay cgroup: a sandbox in a root cgroup gives nothing to charge (never the host's root)") {
  CHECK(RelayCgroupDirs("4:memory:/\n0::/\n", kMountinfo).empty());
  CHECK(RelayCgroupDirs("4:memory:/../x\n", kMountinfo).empty());
}
