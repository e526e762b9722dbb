#include <doctest/doctest.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <fstream>

#include "bundle/default_spec.h"
#include "shim/core/fs.h"
#include "shim/core/look_path.h"
#include "shim/linux/cgroups.h"
#include "shim/linux/hooks.h"
#include "shim/native/launcher.h"
#include "shim/linux/oom.h"
#include "shim/native/plan.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::native;

static bundle::Spec Spec(const std::string& patch_json = "{}") {
  auto doc = bundle::DefaultSpec({"sh"}, false);
  auto patch = boost::json::parse(patch_json).as_object();
  for (auto& kv : patch) doc[kv.key()] = kv.value();
  return *bundle::ParseSpec(boost::json::serialize(doc));
}

TEST_CASE("plan: namespaces, user first, new ones become clone flags") {
  auto plan = PlanFromSpec(Spec(), "/b");
  REQUIRE(plan.ok());
  CHECK((plan->clone_flags & (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)) ==
        (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS));
  CHECK(plan->rootfs == "/b/rootfs");
  CHECK(plan->readonly_root);
  CHECK(plan->hostname == "sandshim");
  auto joined = PlanFromSpec(Spec(R"({"linux":{"namespaces":[{"type":"mount"},{"type":"network","path":"/var/run/netns/x"},
    {"type":"user"}],"uidMappings":[{"containerID":0,"hostID":100000,"size":65536}]}})"), "/b");
  REQUIRE_MESSAGE(joined.ok(), (joined.ok() ? "" : joined.error().msg));
  CHECK(joined->namespaces.front().flag == CLONE_NEWUSER);
  CHECK((joined->clone_flags & CLONE_NEWNET) == 0);
  CHECK(IdMapText(joined->uid_map) == "0 100000 65536\n");
}

TEST_CASE("plan: what the native runtime refuses, clearly") {
  // No mount namespace: the runtime's, with a detached root (runc shares it too); with a
  // new user namespace the init could not return to it, so that is refused.
  auto no_mnt = PlanFromSpec(Spec(R"({"linux":{"namespaces":[{"type":"pid"}]}})"), "/b");
  REQUIRE(no_mnt.ok());
  CHECK(no_mnt->host_mount_ns);
  CHECK((no_mnt->clone_flags & CLONE_NEWNS) == 0);
  auto no_mnt_userns = PlanFromSpec(
      Spec(R"({"linux":{"namespaces":[{"type":"user"}],"uidMappings":[{"containerID":0,"hostID":1000,"size":1}],
              "gidMappings":[{"containerID":0,"hostID":1000,"size":1}]}})"), "/b");
  REQUIRE_FALSE(no_mnt_userns.ok());
  CHECK(no_mnt_userns.error().msg.find("without a mount namespace") != std::string::npos);
  // L6: a profile without a default action is refused, as runc refuses it.
  auto nodefault = PlanFromSpec(Spec(R"({"linux":{"namespaces":[{"type":"mount"}],"seccomp":{"syscalls":[]}}})"), "/b");
  REQUIRE_FALSE(nodefault.ok());
  CHECK(nodefault.error().msg.find("defaultAction") != std::string::npos);
  CHECK_FALSE(PlanFromSpec(Spec(R"({"linux":{"namespaces":[{"type":"mount"},{"type":"user"}]}})"), "/b").ok());
  CHECK_FALSE(PlanFromSpec(Spec(R"({"process":{"args":["x"],"cwd":"/","capabilities":{"bounding":["CAP_BOGUS"]}}})"), "/b").ok());
}

TEST_CASE("plan: mount options become flags, data and a read-only remount for binds") {
  MountStep m;
  ParseMountOptions({"rbind", "ro", "nosuid", "rslave", "mode=755", "size=10m"}, &m);
  CHECK(m.bind);
  CHECK((m.flags & (MS_BIND | MS_REC | MS_RDONLY | MS_NOSUID)) == (MS_BIND | MS_REC | MS_RDONLY | MS_NOSUID));
  CHECK(m.remount);
  CHECK(m.propagation == (MS_SLAVE | MS_REC));
  CHECK(m.data == "mode=755,size=10m");
  MountStep t;
  ParseMountOptions({"nosuid", "noexec", "rw"}, &t);
  CHECK_FALSE(t.bind);
  CHECK_FALSE(t.remount);
  CHECK((t.flags & MS_RDONLY) == 0);
}

TEST_CASE("plan: relative bind sources resolve against the bundle; default devices present") {
  auto plan = PlanFromSpec(Spec(R"({"mounts":[{"destination":"/data","type":"bind","source":"data","options":["rbind","ro"]}]})"), "/b");
  REQUIRE(plan.ok());
  REQUIRE(plan->mounts.size() == 1);
  CHECK(plan->mounts[0].source == "/b/data");
  CHECK(plan->mounts[0].remount);
  bool has_null = false;
  for (const auto& d : plan->devices) has_null |= d.path == "/dev/null" && d.major == 1 && d.minor == 3;
  CHECK(has_null);
}

TEST_CASE("plan: process caps, rlimits, user, seccomp rules") {
  auto plan = PlanFromSpec(Spec(R"({"process":{"args":["x"],"cwd":"/w","user":{"uid":1000,"gid":1001,"additionalGids":[5]},
    "noNewPrivileges":true,"capabilities":{"bounding":["CAP_KILL","CAP_NET_RAW"],"effective":["CAP_KILL"]},
    "rlimits":[{"type":"RLIMIT_NPROC","soft":10,"hard":20}]},
    "linux":{"namespaces":[{"type":"mount"}],"seccomp":{"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":1,
      "architectures":["SCMP_ARCH_X86_64"],"syscalls":[{"names":["read","write"],"action":"SCMP_ACT_ALLOW"},
      {"names":["personality"],"action":"SCMP_ACT_ALLOW","args":[{"index":0,"value":8,"op":"SCMP_CMP_EQ"}]}]}}})"), "/b");
  REQUIRE(plan.ok());
  const auto& p = plan->process;
  CHECK(p.uid == 1000);
  CHECK(p.gid == 1001);
  CHECK(p.additional_gids == std::vector<uint32_t>{5});
  CHECK(p.no_new_privs);
  CHECK(p.caps.bounding == std::vector<int>{CAP_KILL, CAP_NET_RAW});
  CHECK(p.caps.effective == std::vector<int>{CAP_KILL});
  REQUIRE(p.rlimits.size() == 1);
  CHECK(p.rlimits[0].resource == RLIMIT_NPROC);
  CHECK(p.rlimits[0].hard == 20);
  CHECK(plan->seccomp.enabled);
  CHECK(plan->seccomp.default_errno == 1);
  REQUIRE(plan->seccomp.rules.size() == 2);
  CHECK(plan->seccomp.rules[1].args.at(0).value == 8);
}

TEST_CASE("cgroups: only the hierarchies a container needs") {
  auto hs = cgroupfs::ParseMountinfo(
      "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
      "32 25 0:28 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n"
      "33 25 0:29 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
      "34 25 0:30 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer\n"
      "35 25 0:31 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
      "36 25 0:32 / /sys/fs/cgroup/net_cls,net_prio rw - cgroup cgroup rw,net_cls,net_prio\n"
      "37 25 0:33 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
  REQUIRE(hs.size() == 8);
  boost::json::object none;
  auto cpus = boost::json::parse(R"({"cpu":{"cpus":"0"}})").as_object();
  CHECK(HierarchyNeeded(hs[0], nullptr));                                       // memory: usage, limits
  CHECK(HierarchyNeeded(hs[1], &none));                                         // cpu,cpuacct
  CHECK_FALSE(HierarchyNeeded(hs[2], &none));                                   // name=systemd
  CHECK_FALSE(HierarchyNeeded(hs[3], &none));                                   // cpuset, not asked
  CHECK(HierarchyNeeded(hs[3], &cpus));                                         // cpuset, asked
  CHECK(HierarchyNeeded(hs[4], nullptr));                                       // freezer: pause, kill --all
  CHECK(HierarchyNeeded(hs[5], nullptr));                                       // devices: the device policy
  CHECK_FALSE(HierarchyNeeded(hs[6], &cpus));                                   // never configured
  CHECK_FALSE(HierarchyNeeded(hs[7], &none));                                   // hybrid's empty v2
  hs[7].controllers = {"cpu", "memory"};
  CHECK(HierarchyNeeded(hs[7], nullptr));                                       // v2 proper
}

TEST_CASE("cgroups: a recorded path with .. is never read, frozen or removed") {
  testing::TempDir d;
  std::filesystem::create_directories(d.path() / "x" / "empty");
  REQUIRE(fs::WriteFileAtomic(d.path() / "x" / "cgroup.procs", "1\n", 0644, false).ok());
  std::vector<std::filesystem::path> dirs{d.path() / "x" / "empty" / ".."};
  CHECK(CgroupPids(dirs).empty());                  // would otherwise list pid 1 to kill
  CHECK_FALSE(Freeze(dirs, true).ok());             // no freezer found
  CHECK(DestroyCgroups({d.path() / "x" / "empty" / ".." / "empty"}).ok());
  CHECK(std::filesystem::exists(d.path() / "x" / "empty"));
  CHECK(CgroupPids({d.path() / "x"}) == std::vector<pid_t>{1});  // the same file, named plainly
}

TEST_CASE("look path: PATH order, relative names, runc's error words") {
  auto c = ExecCandidates("ls", {"PATH=/a:/b"}, "/w");
  CHECK(c == std::vector<std::string>{"/a/ls", "/b/ls"});
  CHECK(ExecCandidates("./x", {}, "/w") == std::vector<std::string>{"/w/./x"});
  CHECK(ExecCandidates("/bin/sh", {}, "/") == std::vector<std::string>{"/bin/sh"});
  CHECK(ExecCandidates("ls", {}, "/").size() == 6);  // the default PATH
}

TEST_CASE("plan: createContainer and startContainer hooks go to the init, in order, with their args") {
  auto plan = PlanFromSpec(Spec(R"({"hooks":{"createContainer":[{"path":"/bin/a","args":["a","x"],"env":["E=1"],"timeout":3},
    {"path":"/bin/b"}],"startContainer":[{"path":"/bin/c"}],"prestart":[{"path":"/bin/p"}]}})"), "/b");
  REQUIRE(plan.ok());
  REQUIRE(plan->create_container_hooks.size() == 2);
  CHECK(plan->create_container_hooks[0].args == std::vector<std::string>{"a", "x"});
  CHECK(plan->create_container_hooks[0].env == std::vector<std::string>{"E=1"});
  CHECK(plan->create_container_hooks[0].timeout == 3);
  CHECK(plan->create_container_hooks[1].args == std::vector<std::string>{"/bin/b"});  // argv[0] defaults to path
  REQUIRE(plan->start_container_hooks.size() == 1);
  CHECK(plan->start_container_hooks[0].path == "/bin/c");
  auto state = boost::json::parse(StateWith(R"({"ociVersion":"1.0.2","id":"c1","status":"x","pid":0})", "created", 1));
  CHECK(state.at("status").as_string() == "created");
  CHECK(state.at("pid").as_int64() == 1);
  CHECK(state.at("id").as_string() == "c1");
}

TEST_CASE("hooks: a failing hook is an error naming it; a slow one is killed at its timeout") {
  auto fail = RunHooks(std::vector<Hook>{Hook{"/bin/sh", {"sh", "-c", "exit 3"}, {}, 0}}, "startContainer", "{}");
  REQUIRE_FALSE(fail.ok());
  CHECK(fail.error().msg.find("startContainer hook") != std::string::npos);
  CHECK(fail.error().msg.find("status 3") != std::string::npos);
  auto slow = RunHook(Hook{"/bin/sh", {"sh", "-c", "sleep 5"}, {}, 1}, "{}");
  REQUIRE_FALSE(slow.ok());
  CHECK(slow.error().err_no == ETIMEDOUT);
  // The state arrives on stdin.
  CHECK(RunHook(Hook{"/bin/sh", {"sh", "-c", "read -r s; [ \"$s\" = '{\"id\":\"c\"}' ]"}, {}, 0}, "{\"id\":\"c\"}\n").ok());
}

TEST_CASE("oom: the oom_kill count from memory.events (v2) and memory.oom_control (v1)") {
  CHECK(ParseOomKills("low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n") == 2u);
  CHECK(ParseOomKills("oom_kill_disable 0\nunder_oom 0\noom_kill 7\n") == 7u);
  CHECK_FALSE(ParseOomKills("oom_kill_disable 0\nunder_oom 0\n").has_value());  // kernels before 4.13
  testing::TempDir t;
  std::filesystem::create_directories(t.path() / "memory");
  std::filesystem::create_directories(t.path() / "pids");
  { std::ofstream(t.path() / "memory" / "memory.oom_control") << "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"; }
  CHECK(OomKills({t.path() / "memory", t.path() / "pids"}) == 1u);
  CHECK_FALSE(OomKills({t.path() / "pids"}).has_value());
}

TEST_CASE("plan: pid and mount namespaces given by path are joined, not created") {
  auto plan = PlanFromSpec(Spec(R"({"linux":{"namespaces":[{"type":"mount","path":"/proc/7/ns/mnt"},
                                                          {"type":"pid","path":"/proc/7/ns/pid"}]}})"), "/b");
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().msg));
  CHECK((plan->clone_flags & (CLONE_NEWPID | CLONE_NEWNS)) == 0);
  REQUIRE(plan->namespaces.size() == 2);
  CHECK(plan->namespaces[1].flag == CLONE_NEWPID);
  CHECK(plan->namespaces[1].path == "/proc/7/ns/pid");
}

TEST_CASE("plan: oomScoreAdj reaches the process plan") {
  auto plan = PlanFromSpec(Spec(R"({"process":{"args":["sh"],"cwd":"/","oomScoreAdj":-17}})"), "/b");
  REQUIRE(plan.ok());
  CHECK(plan->process.oom_score_adj == -17);
  CHECK(plan->keyring.empty());  // the backend names it (KeyringName), or --no-new-keyring
}
