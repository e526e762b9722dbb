// Mount hardening against RecordingSys: bind flags by remount (checked by statvfs), "ro" on
// an rbind and runc's "rro" recursive, the cgroup mount made of read-only binds of the
// container's own cgroups, masked paths only with a real /dev/null, a shared rootfs
// propagation after pivot_root, and a cgroup namespace made after joining the cgroups.
#include <doctest/doctest.h>
#include <sched.h>
#include <sys/mount.h>

#include "shim/native/cgroup_mounts.h"
#include "shim/native/init.h"
#include "shim/native/mounts.h"
#include "shim/native/plan.h"
#include "tests/fakes/recording_sys.h"

using namespace sandshim;
using namespace sandshim::native;
using sandshim::testing::RecordingSys;

namespace {

MountStep Step(const std::string& dest, const std::string& type, const std::string& source,
               const std::vector<std::string>& options) {
  MountStep m;
  m.destination = dest;
  m.type = type;
  m.source = source;
  ParseMountOptions(options, &m);
  if (type == "bind") m.bind = true, m.flags |= MS_BIND, FinishBindFlags(&m);
  return m;
}

LaunchPlan PlanWith(std::vector<MountStep> mounts) {
  LaunchPlan p;
  p.rootfs = "/b/rootfs";
  p.mounts = std::move(mounts);
  return p;
}

bool Has(const RecordingSys& sys, const std::string& line) { return sys.IndexOf(line) >= 0; }

std::vector<CgroupBind> HybridBinds() {
  return {{"cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct/c1", {"cpu", "cpuacct"}},
          {"memory", "/sys/fs/cgroup/memory/c1", {}},
          {"unified", "/sys/fs/cgroup/unified/c1", {}}};
}

}  // namespace

TEST_CASE("mount plan: bind flags need a remount; ro on rbind and rro are recursive") {
  auto plain = Step("/w", "bind", "/s", {"rbind", "rw"});
  CHECK_FALSE(plain.remount);
  CHECK(plain.recursive_attrs == 0);
  auto ws = Step("/w", "bind", "/s", {"rbind", "nosuid", "nodev", "rw"});
  CHECK(ws.remount);
  CHECK(ws.recursive_attrs == 0);
  auto ro = Step("/w", "bind", "/s", {"rbind", "ro"});
  CHECK(ro.remount);
  CHECK(ro.recursive_attrs == MOUNT_ATTR_RDONLY);
  auto bind_ro = Step("/w", "bind", "/s", {"bind", "ro"});
  CHECK(bind_ro.recursive_attrs == 0);  // one mount: the remount is enough
  auto rro = Step("/w", "bind", "/s", {"bind", "rro", "rnosuid", "rnodev", "rnoexec"});
  CHECK(rro.recursive_attrs == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
  CHECK(rro.data.empty());  // not passed to the filesystem as data
  auto tmp = Step("/t", "tmpfs", "tmpfs", {"nosuid", "ro"});
  CHECK_FALSE(tmp.remount);  // a new filesystem takes its flags at mount time
}

TEST_CASE("mounts: a nosuid,nodev bind is remounted with them, and they are checked") {
  RecordingSys sys;
  REQUIRE(ApplyMounts(sys, PlanWith({Step("/ws", "bind", "/srv/ws", {"rbind", "nosuid", "nodev", "rw"})})).ok());
  int bind = sys.IndexOf("mount /srv/ws /b/rootfs/ws - bind|rec");
  CHECK(bind >= 0);
  CHECK(sys.IndexOf("mount - /b/rootfs/ws - bind|remount|nosuid|nodev") > bind);
  // The kernel not taking them is an error, not a silently weaker mount.
  RecordingSys lost;
  lost.unverified.insert("/b/rootfs/ws");
  auto s = ApplyMounts(lost, PlanWith({Step("/ws", "bind", "/srv/ws", {"rbind", "nosuid", "nodev"})}));
  REQUIRE_FALSE(s.ok());
  CHECK_MESSAGE(s.error().msg == "/ws: mounted without nosuid,nodev", s.error().msg);
}

TEST_CASE("mounts: rro makes the whole tree read-only with mount_setattr") {
  RecordingSys sys;
  REQUIRE(ApplyMounts(sys, PlanWith({Step("/d", "bind", "/srv/d", {"rbind", "rro"})})).ok());
  CHECK(Has(sys, "mount_setattr /b/rootfs/d recursive +ro"));
  CHECK_FALSE(Has(sys, "mount - /b/rootfs/d - bind|remount"));  // nothing asked of the top alone
  RecordingSys old_kernel;
  old_kernel.FailOn("mount_setattr", ENOSYS);
  auto s = ApplyMounts(old_kernel, PlanWith({Step("/d", "bind", "/srv/d", {"rbind", "ro"})}));
  REQUIRE_FALSE(s.ok());  // never a writable submount instead
  CHECK(s.error().err_no == ENOSYS);
}

TEST_CASE("mounts: the cgroup mount is a tmpfs of read-only binds of the container's own cgroups") {
  RecordingSys sys;
  auto plan = PlanWith({Step("/sys/fs/cgroup", "cgroup", "cgroup", {"ro", "nosuid", "noexec", "nodev"})});
  plan.cgroup_binds = HybridBinds();
  auto s = ApplyMounts(sys, plan);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  std::vector<std::string> order = {
      "mount tmpfs /b/rootfs/sys/fs/cgroup tmpfs nosuid|nodev|noexec mode=755",
      "mount /sys/fs/cgroup/cpu,cpuacct/c1 /b/rootfs/sys/fs/cgroup/cpu,cpuacct - bind",
      "mount - /b/rootfs/sys/fs/cgroup/cpu,cpuacct - bind|remount|ro|nosuid|nodev|noexec",
      "symlink /b/rootfs/sys/fs/cgroup/cpu -> cpu,cpuacct",
      "symlink /b/rootfs/sys/fs/cgroup/cpuacct -> cpu,cpuacct",
      "mount /sys/fs/cgroup/memory/c1 /b/rootfs/sys/fs/cgroup/memory - bind",
      "mount - /b/rootfs/sys/fs/cgroup/memory - bind|remount|ro|nosuid|nodev|noexec",
      "mount /sys/fs/cgroup/unified/c1 /b/rootfs/sys/fs/cgroup/unified - bind",
      "mount_setattr /b/rootfs/sys/fs/cgroup recursive +ro|nosuid|nodev|noexec",
  };
  int last = -1;
  for (const auto& want : order) {
    int at = sys.IndexOf(want);
    CHECK_MESSAGE(at > last, ("\"" + want + "\" at " + std::to_string(at) + ", expected after " + std::to_string(last)));
    if (at > last) last = at;
  }
  // Never cgroupfs itself (the host's whole tree), never a bind with MS_REC.
  CHECK(sys.Calls({"mount"}).size() == 7);
  for (const auto& c : sys.Calls({"mount"})) {
    CHECK(c.find(" cgroup ") == std::string::npos);
    CHECK(c.find("rec") == std::string::npos);
  }
  SUBCASE("a bind that cannot be made read-only fails the create") {
    RecordingSys failing;
    failing.FailOn("mount - /b/rootfs/sys/fs/cgroup/memory", EPERM);
    auto e = ApplyMounts(failing, plan);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().msg == "mount /sys/fs/cgroup/memory bind flags: Operation not permitted");
    RecordingSys no_setattr;
    no_setattr.FailOn("mount_setattr", ENOSYS);
    CHECK_FALSE(ApplyMounts(no_setattr, plan).ok());
    RecordingSys unverified;
    unverified.unverified.insert("/b/rootfs/sys/fs/cgroup");
    CHECK_FALSE(ApplyMounts(unverified, plan).ok());
  }
  SUBCASE("v2 alone: the container's directory is the mount") {
    RecordingSys v2;
    plan.cgroup_binds = {{"", "/sys/fs/cgroup/c1", {}}};
    REQUIRE(ApplyMounts(v2, plan).ok());
    CHECK(Has(v2, "mount /sys/fs/cgroup/c1 /b/rootfs/sys/fs/cgroup - bind"));
    CHECK(Has(v2, "mount_setattr /b/rootfs/sys/fs/cgroup recursive +ro|nosuid|nodev|noexec"));
    CHECK_FALSE(Has(v2, "mount tmpfs"));
  }
}

TEST_CASE("cgroup binds: the container's own directories, never a hierarchy's root") {
  std::vector<Hierarchy> hs = {{"/sys/fs/cgroup/cpu,cpuacct", {"cpu", "cpuacct"}, false},
                               {"/sys/fs/cgroup/memory", {"memory"}, false},
                               {"/sys/fs/cgroup/systemd", {}, false},
                               {"/sys/fs/cgroup/net_cls", {"net_cls"}, false},
                               {"/sys/fs/cgroup/unified", {}, true},
                               {"/elsewhere/pids", {"pids"}, false}};
  std::vector<std::filesystem::path> dirs;
  for (const auto& h : hs) dirs.push_back(h.mount / "docker/c1");
  std::vector<bool> made = {true, true, false, false, true, true};
  std::map<std::string, std::string> own = {{"systemd", "/user.slice/s"}};  // net_cls: at "/"
  auto b = PlanCgroupBinds(hs, dirs, made, own);
  REQUIRE(b.size() == 4);
  CHECK(b[0].name == "cpu,cpuacct");
  CHECK(b[0].source == "/sys/fs/cgroup/cpu,cpuacct/docker/c1");
  CHECK(b[0].links == std::vector<std::string>{"cpu", "cpuacct"});
  CHECK(b[1].source == "/sys/fs/cgroup/memory/docker/c1");
  CHECK(b[2].name == "systemd");
  CHECK(b[2].source == "/sys/fs/cgroup/systemd/user.slice/s");  // the runtime's, which the init keeps
  CHECK(b[3].name == "unified");  // net_cls (root) and /elsewhere left out
  auto v2 = PlanCgroupBinds({{"/sys/fs/cgroup", {"memory"}, true}}, {"/sys/fs/cgroup/c1"}, {true}, {});
  REQUIRE(v2.size() == 1);
  CHECK(v2[0].name.empty());
}

TEST_CASE("cgroups path: the root of the hierarchies and .. are refused") {
  CHECK(CheckCgroupsPath("").ok());
  CHECK(CheckCgroupsPath("/docker/abc").ok());
  CHECK(CheckCgroupsPath("machine.slice/x").ok());
  for (const char* bad : {"/", "//", "/.", "/./", "/a/..", "/../x"}) {
    CAPTURE(bad);
    CHECK_FALSE(CheckCgroupsPath(bad).ok());
  }
}

TEST_CASE("cgroups: limits no mounted controller enforces are refused") {
  std::vector<Hierarchy> hybrid = {{"/sys/fs/cgroup/blkio", {"blkio"}, false}, {"/sys/fs/cgroup/unified", {}, true}};
  auto r = [](const char* j) { return boost::json::parse(j).as_object(); };
  auto blkio = r(R"({"blockIO":{"weight":100}})");
  auto net = r(R"({"network":{"classID":1048577}})");
  auto prio = r(R"({"network":{"priorities":[{"name":"eth0","priority":5}]}})");
  CHECK(CheckControllersFor(hybrid, &blkio).ok());
  auto e = CheckControllersFor(hybrid, &net);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().msg.find("net_cls") != std::string::npos);
  CHECK_FALSE(CheckControllersFor(hybrid, &prio).ok());
  CHECK_FALSE(CheckControllersFor({{"/sys/fs/cgroup", {"memory"}, true}}, &blkio).ok());
  CHECK(CheckControllersFor({{"/sys/fs/cgroup", {"io"}, true}}, &blkio).ok());
  auto empty = r(R"({"blockIO":{}})");
  CHECK(CheckControllersFor({}, &empty).ok());
}

TEST_CASE("masked paths: only with the real /dev/null, opened once, mounted by descriptor") {
  RecordingSys sys;
  sys.files.insert("/proc/kcore");
  sys.absent.insert("/proc/timer_stats");
  REQUIRE(MaskPaths(sys, {"/proc/kcore", "/proc/acpi", "/proc/timer_stats"}).ok());
  CHECK(sys.Calls({"openat2"}).front() == "openat2 /dev/null");
  CHECK(Has(sys, "mount /dev/null /proc/kcore - bind"));
  CHECK(Has(sys, "mount tmpfs /proc/acpi tmpfs ro size=0"));
  CHECK_FALSE(Has(sys, "mount /dev/null /proc/timer_stats"));
  // An image's /dev/null that is a file (or a link: RESOLVE_NO_SYMLINKS refuses it).
  RecordingSys fake_null;
  fake_null.files.insert("/dev/null");
  fake_null.files.insert("/proc/kcore");
  auto s = MaskPaths(fake_null, {"/proc/kcore"});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg.find("not the null device") != std::string::npos);
  CHECK(fake_null.Calls({"mount"}).empty());
  RecordingSys link_null;
  link_null.FailOn("openat2 /dev/null", ELOOP);
  auto l = MaskPaths(link_null, {"/proc/kcore"});
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().msg == "/dev/null is a symlink: refusing to mask paths with it");
}

TEST_CASE("init: a cgroup namespace is made once in the cgroups; shared propagation after pivot_root") {
  RecordingSys sys;
  auto plan = PlanWith({});
  plan.clone_flags = CLONE_NEWNS | CLONE_NEWCGROUP;
  plan.rootfs_propagation = MS_SHARED | MS_REC;
  auto s = SetupContainer(sys, plan, InitFds{}, [&] {
    sys.calls.push_back("in cgroups");
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  CHECK(sys.IndexOf("mount - / - rec|slave") == 0);  // not shared: pivot_root would refuse
  CHECK(sys.IndexOf("unshare cgroup") == sys.IndexOf("in cgroups") + 1);
  int pivot = sys.IndexOf("pivot_root . .");
  CHECK(pivot > 0);
  CHECK(sys.IndexOf("mount - / - rec|shared") > pivot);
}

// The runtime moves the init into its cgroups while the init makes its mounts (launcher
// 'P'): what needs the init in them waits for in_cgroups.
TEST_CASE("init: the mounts are made before the init is in its cgroups, devices after") {
  RecordingSys sys;
  auto plan = PlanWith({Step("/proc", "proc", "proc", {}), Step("/sys/fs/cgroup", "cgroup", "cgroup", {"ro"}),
                        Step("/run", "tmpfs", "tmpfs", {})});
  plan.cgroup_binds = HybridBinds();
  plan.clone_flags = CLONE_NEWNS | CLONE_NEWCGROUP;
  plan.devices.push_back({.path = "/dev/null", .type = 'c', .major = 1, .minor = 3, .mode = 0666});
  auto s = SetupContainer(sys, plan, InitFds{}, [&] {
    sys.calls.push_back("in cgroups");
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  int placed = sys.IndexOf("in cgroups");
  REQUIRE(placed > 0);
  CHECK(sys.IndexOf("mount proc /b/rootfs/proc") < placed);
  CHECK(sys.IndexOf("mount /sys/fs/cgroup/memory/c1 /b/rootfs/sys/fs/cgroup/memory - bind") < placed);
  CHECK(sys.IndexOf("mount tmpfs /b/rootfs/run") < placed);
  CHECK(sys.IndexOf("unshare cgroup") == placed + 1);
  CHECK(sys.IndexOf("mknod /b/rootfs/dev/null") > placed);
  // A refusal from the runtime stops the setup there.
  RecordingSys refused;
  auto r = SetupContainer(refused, plan, InitFds{}, [] { return Status(MakeError("no cgroups", EIO)); });
  REQUIRE_FALSE(r.ok());
  CHECK(refused.IndexOf("unshare cgroup") < 0);
  CHECK(refused.IndexOf("mknod") < 0);
}
