// shim/core/cgroupfs: hierarchies from mountinfo text, our own cgroup, where a path lives.
#include "shim/core/cgroupfs.h"

#include <doctest/doctest.h>

using namespace sandshim;
using V = std::vector<std::string>;

namespace {

// This host's layout: v1 controllers, a named systemd hierarchy, an empty cgroup2 (hybrid).
const char* kHybrid =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,xattr,devices,clone_children\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n"
    "50 1 0:5 / /proc rw - proc proc rw\n";

const char* kPureV2 =
    "24 1 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
    "25 1 0:23 / /proc rw - proc proc rw\n";

}  // namespace

TEST_CASE("cgroupfs: the hybrid layout, v1 controllers without mount options, named and v2") {
  auto hs = cgroupfs::ParseMountinfo(kHybrid);
  REQUIRE(hs.size() == 5);
  CHECK(hs[0].mount == "/sys/fs/cgroup/cpu,cpuacct");
  CHECK(hs[0].controllers == V{"cpu", "cpuacct"});
  CHECK(hs[1].controllers == V{"memory"});
  CHECK(hs[2].controllers == V{"devices"});  // xattr and clone_children are options
  CHECK(hs[3].controllers.empty());
  CHECK(hs[3].name == "systemd");
  CHECK(hs[3].Key() == "systemd");
  CHECK(hs[4].v2);
  CHECK(hs[4].mount == "/sys/fs/cgroup/unified");
  CHECK(hs[4].controllers.empty());  // read from the mount by Hierarchies(), not mountinfo
  CHECK(hs[4].Key() == "");
  CHECK(hs[0].Key() == "cpu");
}

TEST_CASE("cgroupfs: pure v2 is one hierarchy at the root of /sys/fs/cgroup") {
  auto hs = cgroupfs::ParseMountinfo(kPureV2);
  REQUIRE(hs.size() == 1);
  CHECK(hs[0].v2);
  CHECK(hs[0].mount == "/sys/fs/cgroup");
  auto own = cgroupfs::ParseProcCgroup("0::/user.slice/session-1.scope\n");
  CHECK(cgroupfs::DirOf(hs[0], own, "/sandshim-c1") == "/sys/fs/cgroup/sandshim-c1");
  CHECK(cgroupfs::DirOf(hs[0], own, "docker/c1") == "/sys/fs/cgroup/user.slice/session-1.scope/docker/c1");
}

TEST_CASE("cgroupfs: a hierarchy mounted twice is one; escaped mount points are decoded") {
  auto hs = cgroupfs::ParseMountinfo(
      "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "90 31 0:32 / /mnt/with\\040space rw - cgroup cgroup rw,memory\n"
      "91 31 0:40 / /mnt/pids\\040too rw - cgroup cgroup rw,pids\n");
  REQUIRE(hs.size() == 2);
  CHECK(hs[0].mount == "/sys/fs/cgroup/memory");
  CHECK(hs[1].mount == "/mnt/pids too");
}

TEST_CASE("cgroupfs: our own cgroup per key, and where paths land below it") {
  auto own = cgroupfs::ParseProcCgroup("4:memory:/process_api/abc\n3:cpu,cpuacct:/x\n1:name=systemd:/s\n0::/v2/path\n");
  CHECK(own.at("") == "/v2/path");
  CHECK(own.at("memory") == "/process_api/abc");
  CHECK(own.at("cpuacct") == "/x");
  CHECK(own.at("systemd") == "/s");
  auto hs = cgroupfs::ParseMountinfo(kHybrid);
  // Keyed by controller, not by the mount's directory name ("cpu,cpuacct").
  CHECK(cgroupfs::OwnDir(hs[0], own) == "/sys/fs/cgroup/cpu,cpuacct/x");
  CHECK(cgroupfs::OwnDir(hs[1], own) == "/sys/fs/cgroup/memory/process_api/abc");
  CHECK(cgroupfs::OwnDir(hs[2], own) == "/sys/fs/cgroup/devices");  // at its root: not listed
  CHECK(cgroupfs::DirOf(hs[1], own, "/sandshim-c1") == "/sys/fs/cgroup/memory/sandshim-c1");
  CHECK(cgroupfs::DirOf(hs[1], own, "parent/c1") == "/sys/fs/cgroup/memory/process_api/abc/parent/c1");
  CHECK(cgroupfs::DirOf(hs[3], own, "p/c1") == "/sys/fs/cgroup/systemd/s/p/c1");
}

TEST_CASE("cgroupfs: a mount of a sub-cgroup (a container's view) finds our cgroup relative to it") {
  auto hs = cgroupfs::ParseMountinfo("35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
  REQUIRE(hs.size() == 1);
  CHECK(hs[0].root == "/docker/abc");
  auto own = cgroupfs::ParseProcCgroup("4:memory:/docker/abc/inner\n");
  CHECK(cgroupfs::OwnDir(hs[0], own) == "/sys/fs/cgroup/memory/inner");
  CHECK(cgroupfs::OwnDir(hs[0], cgroupfs::ParseProcCgroup("4:memory:/docker/abc\n")) == "/sys/fs/cgroup/memory");
}
