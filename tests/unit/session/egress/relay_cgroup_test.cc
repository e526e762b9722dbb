// Where a session's relay is charged (relay_cgroup.h): a "relay" child of the sandbox's
// memory and pids cgroups (v1) and of its unified cgroup (v2), never of the root cgroup.
#include <doctest/doctest.h>

#include "shim/session/egress/relay_cgroup.h"

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

TEST_CASE("session cgroups (the spare refill joins them): every hierarchy where the sandbox has its own") {
  auto dirs = sandshim::session::SessionCgroupDirs(
      "9:name=systemd:/sshim-a\n8:pids:/sshim-a\n4:memory:/sshim-a\n3:cpu,cpuacct:/sshim-a\n2:freezer:/\n0::/\n",
      kMountinfo + std::string("40 30 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"));
  REQUIRE(dirs.size() == 4);
  CHECK(dirs[0] == "/sys/fs/cgroup/systemd/sshim-a");
  CHECK(dirs[1] == "/sys/fs/cgroup/pids/sshim-a");
  CHECK(dirs[2] == "/sys/fs/cgroup/memory/sshim-a");
  CHECK(dirs[3] == "/sys/fs/cgroup/cpu,cpuacct/sshim-a");  // not the host's root freezer or unified
  CHECK(sandshim::session::SessionCgroupDirs("0::/sshim-b\n", kMountinfo) ==
        std::vector<std::filesystem::path>{"/sys/fs/cgroup/unified/sshim-b"});
  CHECK(sandshim::session::SessionCgroupDirs("4:memory:/../x\n4:memory:/\n", kMountinfo).empty());
}
