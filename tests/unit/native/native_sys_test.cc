// The native init's setup (namespaces, rootfs, mounts, devices, pivot_root, hostname,
// sysctl, masked and read-only paths) run against RecordingSys: the order of the calls
// for a realistic spec, and every failure stopping there with a message that says what.
#include <doctest/doctest.h>
#include <errno.h>
#include <sched.h>

#include "bundle/default_spec.h"
#include "shim/native/init.h"
#include "shim/native/ns_order.h"
#include "shim/native/plan.h"
#include "tests/fakes/recording_sys.h"

using namespace sandshim;
using namespace sandshim::native;
using sandshim::testing::RecordingSys;

namespace {

// What docker hands a runtime, in short: runc's default spec plus a read-only bind, a
// joined network namespace (libnetwork's), a sysctl and a hostname.
LaunchPlan DockerLikePlan() {
  auto doc = bundle::DefaultSpec({"sh"}, false);
  doc["hostname"] = "web";
  doc["mounts"].as_array().push_back(boost::json::object{
      {"destination", "/data"}, {"type", "bind"}, {"source", "/srv/data"}, {"options", boost::json::array{"rbind", "ro"}}});
  auto& linux_obj = doc["linux"].as_object();
  for (auto& ns : linux_obj["namespaces"].as_array())
    if (ns.as_object()["type"].as_string() == "network") ns.as_object()["path"] = "/run/netns/web";
  linux_obj["sysctl"] = boost::json::object{{"net.ipv4.ip_unprivileged_port_start", "0"}};
  auto spec = bundle::ParseSpec(boost::json::serialize(doc));
  REQUIRE(spec.ok());
  auto plan = PlanFromSpec(*spec, "/b");
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().msg));
  return *plan;
}

// The fake's view of a realistic rootfs: files where the spec masks files.
void RealisticHost(RecordingSys& sys) {
  for (const char* f : {"/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list", "/proc/sched_debug",
                        "/proc/sysrq-trigger"})
    sys.files.insert(f);
  for (const char* gone : {"/proc/timer_stats", "/proc/asound", "/proc/scsi"}) sys.absent.insert(gone);
}

Status Setup(RecordingSys& sys, const LaunchPlan& plan) { return SetupContainer(sys, plan, InitFds{}); }

// Runs the setup with one call failing; returns the error (the test fails if none).
Error FailingAt(const std::string& prefix, int err, LaunchPlan plan = DockerLikePlan(), RecordingSys* out = nullptr) {
  RecordingSys local;
  RecordingSys& sys = out ? *out : local;
  RealisticHost(sys);
  sys.FailOn(prefix, err);
  auto s = Setup(sys, plan);
  REQUIRE_FALSE_MESSAGE(s.ok(), ("no error with " + prefix + " failing"));
  // The failed call is the last one made: nothing runs past the first error.
  REQUIRE_FALSE(sys.calls.empty());
  CHECK_MESSAGE(sys.calls.back().rfind(prefix, 0) == 0, ("last call: " + sys.calls.back()));
  CHECK(s.error().err_no == err);
  return s.error();
}

bool Contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("native setup: the order of effects for a docker-like spec") {
  RecordingSys sys;
  RealisticHost(sys);
  auto s = Setup(sys, DockerLikePlan());
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  std::vector<std::string> order = {
      "setns /run/netns/web net",                             // join before anything is mounted
      "mount - / - rec|slave",                                // nothing propagates to the host
      "mount /b/rootfs /b/rootfs - bind|rec",                 // the rootfs becomes a mount
      "mount proc /b/rootfs/proc proc 0",                     // spec mounts, in spec order
      "mount tmpfs /b/rootfs/dev tmpfs nosuid|strictatime mode=755,size=65536k",
      "mount devpts /b/rootfs/dev/pts devpts",
      "mount /srv/data /b/rootfs/data - bind|rec",            // the bind, without ro first...
      "mount - /b/rootfs/data - bind|remount|ro",             // ...then a read-only remount
      "mount_setattr /b/rootfs/data recursive +ro",           // ro on an rbind: the whole tree
      "mknod /b/rootfs/dev/null 1:3 c",                       // devices after /dev is mounted
      "symlink /b/rootfs/dev/fd -> /proc/self/fd",
      "pivot_root . .",
      "umount . detach",                                      // the host's tree is gone
      "sethostname web",
      "write /proc/sys/net/ipv4/ip_unprivileged_port_start 0",
      "mount tmpfs /proc/acpi tmpfs ro size=0",               // masked directory
      "mount /dev/null /proc/kcore - bind",                   // masked file
      "mount /proc/bus /proc/bus - bind|rec",                 // read-only paths, every submount
      "mount_setattr /proc/bus recursive +ro",
      "mount - / - bind|remount|ro",                          // read-only root, last
  };
  int last = -1;
  for (const auto& want : order) {
    int at = sys.IndexOf(want);
    CHECK_MESSAGE(at > last, ("\"" + want + "\" at " + std::to_string(at) + ", expected after " + std::to_string(last)));
    if (at > last) last = at;
  }
  // Masked paths that do not exist are skipped, not created.
  CHECK(sys.IndexOf("mount /dev/null /proc/timer_stats") < 0);
  // Before pivot_root every mount lands in the rootfs (or is the propagation change of /).
  int pivot = sys.IndexOf("pivot_root");
  for (int i = 0; i < pivot; ++i) {
    const auto& c = sys.calls[i];
    if (c.rfind("mount ", 0) != 0) continue;
    std::string target = c.substr(6);
    target = target.substr(target.find(' ') + 1);
    target = target.substr(0, target.find(' '));
    CHECK_MESSAGE((target == "/" || target.rfind("/b/rootfs", 0) == 0), ("mount outside the rootfs: " + c));
  }
}

TEST_CASE("native setup: --no-pivot moves the rootfs over / and chroots, never pivot_root") {
  RecordingSys sys;
  RealisticHost(sys);
  auto plan = DockerLikePlan();
  plan.no_pivot = true;
  REQUIRE(Setup(sys, plan).ok());
  CHECK(sys.IndexOf("pivot_root") < 0);
  int chdir = sys.IndexOf("chdir /b/rootfs"), move = sys.IndexOf("mount /b/rootfs / - move"),
      chroot = sys.IndexOf("chroot ."), host = sys.IndexOf("sethostname web");
  CHECK(chdir >= 0);
  CHECK(move > chdir);
  CHECK(chroot > move);
  CHECK(host > chroot);
  auto e = FailingAt("chroot", EPERM, plan);
  CHECK(Contains(e.msg, "chroot into rootfs (--no-pivot): Operation not permitted"));
}

TEST_CASE("native setup: without a mount namespace, set up in a throwaway one, then a detached root in the host's") {
  RecordingSys sys;
  RealisticHost(sys);
  auto plan = DockerLikePlan();
  plan.host_mount_ns = true;
  REQUIRE(Setup(sys, plan).ok());
  int open_ns = sys.IndexOf("open /proc/self/ns/mnt"), unshare = sys.IndexOf("unshare " + std::to_string(CLONE_NEWNS)),
      first_mount = sys.IndexOf("mount "), pivot = sys.IndexOf("pivot_root"), masks = sys.IndexOf("mount /dev/null"),
      tree = sys.IndexOf("open_tree /"), back = sys.IndexOf("setns /proc/self/ns/mnt " + std::to_string(CLONE_NEWNS)),
      into = sys.IndexOf("fchdir tree:/"), chroot = sys.IndexOf("chroot .");
  // Every mount is made after the unshare (never in the runtime's namespace), the root is
  // complete (masks included) before it is cloned, and nothing is mounted once back.
  CHECK(open_ns >= 0);
  CHECK(unshare > open_ns);
  CHECK(first_mount > unshare);
  CHECK(pivot > first_mount);
  CHECK(tree > pivot);
  CHECK(tree > masks);
  CHECK(back > tree);
  CHECK(into > back);
  CHECK(chroot > into);
  for (size_t i = static_cast<size_t>(back); i < sys.calls.size(); ++i)
    CHECK_MESSAGE(sys.calls[i].rfind("mount ", 0) != 0, ("mounted in the runtime's namespace: " + sys.calls[i]));
  auto e = FailingAt("open_tree", EINVAL, plan);
  CHECK(Contains(e.msg, "open_tree a detached copy of the root"));
}

TEST_CASE("native setup: each failing call stops the setup with a message naming the step") {
  struct Case {
    std::string call;
    int err;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {"open /run/netns/web", ENOENT, "open namespace /run/netns/web: No such file or directory"},
           {"setns /run/netns/web", EINVAL, "join namespace /run/netns/web: Invalid argument"},
           {"mount - / - rec|slave", EPERM, "mount / propagation: Operation not permitted"},
           {"mount /b/rootfs /b/rootfs", EACCES, "mount rootfs /b/rootfs: Permission denied"},
           {"open /b/rootfs", ENOENT, "open rootfs /b/rootfs: No such file or directory"},
           {"mount proc ", EPERM, "mount /proc: Operation not permitted"},
           {"mount devpts ", ENODEV, "mount /dev/pts: No such device"},
           {"mount - /b/rootfs/data", EPERM, "mount /data bind flags: Operation not permitted"},
           {"mount_setattr /b/rootfs/data", EINVAL, "mount /data recursive flags (mount_setattr): Invalid argument"},
           {"openat2 /dev/null", ENOENT, "open /dev/null to mask paths with: No such file or directory"},
           {"openat2 /b/rootfs/dev/shm", ELOOP, "open /dev/shm in rootfs: Too many levels of symbolic links"},
           {"symlink /b/rootfs/dev/ptmx", EROFS, "symlink /dev/ptmx: Read-only file system"},
           {"pivot_root", EINVAL, "pivot_root: Invalid argument"},
           {"umount .", EBUSY, "umount old root: Device or resource busy"},
           {"sethostname", EPERM, "sethostname web: Operation not permitted"},
           {"open /proc/sys/net/ipv4", EROFS, "sysctl net.ipv4.ip_unprivileged_port_start: Read-only file system"},
           {"write /proc/sys/net", EINVAL, "sysctl net.ipv4.ip_unprivileged_port_start=0: Invalid argument"},
           {"mount /dev/null /proc/kcore", EPERM, "mount mask /proc/kcore: Operation not permitted"},
           {"mount_setattr /proc/sys", EPERM, "read-only /proc/sys (mount_setattr): Operation not permitted"},
           {"mount - / - bind|remount|ro", EROFS, "mount / read-only: Read-only file system"},
       }) {
    CAPTURE(c.call);
    auto e = FailingAt(c.call, c.err);
    CHECK_MESSAGE(Contains(e.msg, c.message), ("got: " + e.msg));
  }
}

TEST_CASE("native setup: missing mount points are made inside the rootfs; a failing mkdir says where") {
  RecordingSys sys;
  RealisticHost(sys);
  sys.absent.insert("/b/rootfs/data");
  REQUIRE(Setup(sys, DockerLikePlan()).ok());
  int mk = sys.IndexOf("mkdir /b/rootfs/data 0755");
  CHECK(mk >= 0);
  CHECK(sys.IndexOf("mount /srv/data /b/rootfs/data") > mk);
  // A file bind gets a file to mount on, not a directory.
  RecordingSys files;
  RealisticHost(files);
  files.files.insert("/srv/data");
  files.absent.insert("/b/rootfs/data");
  REQUIRE(Setup(files, DockerLikePlan()).ok());
  CHECK(files.IndexOf("create /b/rootfs/data") >= 0);
  CHECK(files.IndexOf("mkdir /b/rootfs/data") < 0);
  RecordingSys failing;
  failing.absent.insert("/b/rootfs/data");
  auto e = FailingAt("mkdir /b/rootfs/data", EACCES, DockerLikePlan(), &failing);
  CHECK_MESSAGE(Contains(e.msg, "mkdir data in rootfs: Permission denied"), e.msg);
}

TEST_CASE("native setup: the fallbacks the code promises") {
  SUBCASE("mknod refused: the host's device node is bound instead") {
    RecordingSys sys;
    RealisticHost(sys);
    sys.FailOn("mknod /b/rootfs/dev/null", EPERM);
    REQUIRE(Setup(sys, DockerLikePlan()).ok());
    int bind = sys.IndexOf("mount /dev/null /b/rootfs/dev/null - bind");
    CHECK(bind > sys.IndexOf("mknod /b/rootfs/dev/null"));
    CHECK(sys.IndexOf("chown /b/rootfs/dev/null") < 0);  // nothing to chown: it was not made
  }
  SUBCASE("sysfs refused (no network namespace of our own): the host's /sys, read-only") {
    RecordingSys sys;
    RealisticHost(sys);
    sys.FailOn("mount sysfs ", EPERM);
    REQUIRE(Setup(sys, DockerLikePlan()).ok());
    int bind = sys.IndexOf("mount /sys /b/rootfs/sys - bind|rec");
    CHECK(bind >= 0);
    // The whole tree read-only (a bind remount would change the top mount only).
    CHECK(sys.IndexOf("mount_setattr /b/rootfs/sys recursive +ro|nosuid|nodev|noexec") > bind);
  }
  SUBCASE("the sysfs fallback that cannot be made read-only fails the setup") {
    RecordingSys sys;
    RealisticHost(sys);
    sys.FailOn("mount sysfs ", EPERM);
    sys.FailOn("mount_setattr /b/rootfs/sys", ENOSYS);
    auto s = Setup(sys, DockerLikePlan());
    REQUIRE_FALSE(s.ok());
    CHECK_MESSAGE(Contains(s.error().msg, "make /sys (host /sys) read-only (mount_setattr)"), s.error().msg);
  }
  SUBCASE("the sysfs fallback failing too is an error about /sys") {
    RecordingSys sys;
    RealisticHost(sys);
    sys.FailOn("mount sysfs ", EPERM);
    sys.FailOn("mount /sys /b/rootfs/sys", EACCES);
    auto s = Setup(sys, DockerLikePlan());
    REQUIRE_FALSE(s.ok());
    CHECK_MESSAGE(Contains(s.error().msg, "mount /sys (host /sys): Permission denied"), s.error().msg);
    CHECK(sys.calls.back().rfind("mount /sys /b/rootfs/sys", 0) == 0);
  }
}

TEST_CASE("native setup: in a new user namespace it becomes root first and binds devices instead of mknod") {
  RecordingSys sys;
  RealisticHost(sys);
  auto plan = DockerLikePlan();
  plan.clone_flags |= CLONE_NEWUSER;
  REQUIRE(Setup(sys, plan).ok());
  int gid = sys.IndexOf("setresgid 0 0 0"), uid = sys.IndexOf("setresuid 0 0 0");
  CHECK(gid >= 0);
  CHECK(uid > gid);  // gid first: after setresuid we could no longer change it
  CHECK(sys.IndexOf("mount - / - rec|slave") > uid);
  CHECK(sys.Calls({"mknod"}).empty());  // not allowed in a user namespace
  CHECK(sys.IndexOf("mount /dev/null /b/rootfs/dev/null - bind") >= 0);
  auto e = FailingAt("setresuid", EPERM, plan);
  CHECK_MESSAGE(Contains(e.msg, "become root in the user namespace: Operation not permitted"), e.msg);
}

// M11: with a new user namespace, a namespace given by path is owned by another userns (a
// session's proxy netns, docker's): the init, inside its userns, could not join it. The
// launcher joins it around the clone (ns_order.h), and the init must not try again.
TEST_CASE("native setup: with a new user namespace the netns by path is the launcher's to join") {
  auto plan = DockerLikePlan();
  CHECK(JoinedAroundClone(plan, CLONE_NEWPID));
  CHECK_FALSE(JoinedAroundClone(plan, CLONE_NEWNET));  // no userns: the init joins it itself
  plan.clone_flags |= CLONE_NEWUSER;
  plan.uid_map = {{0, 268435456, 65536}};
  CHECK(JoinedAroundClone(plan, CLONE_NEWNET));
  CHECK(JoinedAroundClone(plan, CLONE_NEWIPC));
  CHECK(JoinedAroundClone(plan, CLONE_NEWUTS));
  CHECK_FALSE(JoinedAroundClone(plan, CLONE_NEWNS));  // needs an unshared fs_struct: the init's
  RecordingSys sys;
  RealisticHost(sys);
  auto s = Setup(sys, plan);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  for (const auto& c : sys.calls) CHECK_MESSAGE(c.rfind("setns", 0) != 0, ("init joined: " + c));
  CHECK(sys.calls.front().rfind("setres", 0) == 0);  // first thing: root in its own userns
}

TEST_CASE("native exec: the user namespace is joined last") {
  CHECK(std::end(kExecJoinOrder)[-1] == CLONE_NEWUSER);
  CHECK(std::size(kExecJoinOrder) == 7);
}

TEST_CASE("native setup: a new network namespace gets lo up, as runc's does; a joined one is left alone") {
  auto doc = bundle::DefaultSpec({"sh"}, false);  // network namespace without a path: a new one
  auto spec = bundle::ParseSpec(boost::json::serialize(doc));
  REQUIRE(spec.ok());
  auto plan = PlanFromSpec(*spec, "/b");
  REQUIRE(plan.ok());
  REQUIRE((plan->clone_flags & CLONE_NEWNET) != 0);
  RecordingSys sys;
  RealisticHost(sys);
  REQUIRE(Setup(sys, *plan).ok());
  int up = sys.IndexOf("link up lo");
  CHECK(up >= 0);
  CHECK(up < sys.IndexOf("pivot_root"));
  RecordingSys joined;
  RealisticHost(joined);
  REQUIRE(Setup(joined, DockerLikePlan()).ok());
  CHECK(joined.IndexOf("link up") < 0);  // libnetwork's namespace: docker configured it
  auto e = FailingAt("link up lo", EPERM, *plan);
  CHECK(Contains(e.msg, "bring up lo: Operation not permitted"));
}
