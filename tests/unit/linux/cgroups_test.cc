// shim/linux/cgroups: applying and updating linux.resources, against hierarchies in a temp
// directory (the seam: SetupCgroups/UpdateCgroups over given hierarchies), where every control
// file is a plain file. No root, no /sys/fs/cgroup.
#include "shim/linux/cgroups.h"

#include <doctest/doctest.h>

#include "shim/core/fs.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::native;
namespace json = boost::json;

namespace {

struct Tree {
  testing::TempDir dir;
  std::vector<Hierarchy> hs;
  std::vector<std::filesystem::path> dirs;
  // v1 memory, cpu and pids, as on this host; the container at /ctr in each.
  Tree() {
    for (const char* c : {"memory", "cpu", "pids"}) {
      auto mount = dir.path() / c;
      (void)fs::MkdirAll(mount, 0755);
      hs.push_back(Hierarchy{.mount = mount, .controllers = {c}});
      dirs.push_back(mount / "ctr");
    }
  }
  std::string Read(const std::string& c, const std::string& file) {
    return fs::ReadFile(dir.path() / c / "ctr" / file).value_or("<none>");
  }
};

json::object Resources(const char* text) { return json::parse(text).as_object(); }

}  // namespace

TEST_CASE("native cgroups: setup writes each limit to its hierarchy, then moves the init in") {
  Tree t;
  auto r = Resources(R"({"memory":{"limit":67108864},"cpu":{"shares":512,"quota":50000,"period":100000},"pids":{"limit":64}})");
  REQUIRE(SetupCgroups(t.hs, t.dirs, &r, 4242).ok());
  CHECK(t.Read("memory", "memory.limit_in_bytes") == "67108864");
  CHECK(t.Read("cpu", "cpu.shares") == "512");
  CHECK(t.Read("cpu", "cpu.cfs_quota_us") == "50000");
  CHECK(t.Read("pids", "pids.max") == "64");
  for (const char* c : {"memory", "cpu", "pids"}) CHECK(t.Read(c, "cgroup.procs") == "4242");
  CHECK(t.Read("memory", "cpu.shares") == "<none>");  // nothing crosses hierarchies
}

TEST_CASE("native cgroups: a cgroup that already holds processes is someone else's") {
  Tree t;
  REQUIRE(fs::MkdirAll(t.dirs[0], 0755).ok());
  REQUIRE(fs::WriteFileAtomic(t.dirs[0] / "cgroup.procs", "1\n").ok());
  auto r = Resources(R"({"memory":{"limit":1048576}})");
  auto s = SetupCgroups(t.hs, t.dirs, &r, 4242);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().err_no == EEXIST);
  CHECK(t.Read("memory", "memory.limit_in_bytes") == "<none>");
}

TEST_CASE("native cgroups: a path with .. is refused before anything is written") {
  Tree t;
  auto dirs = t.dirs;
  dirs[1] = t.dir.path() / "cpu" / ".." / ".." / "x";
  auto r = Resources(R"({"memory":{"limit":1048576}})");
  CHECK_FALSE(SetupCgroups(t.hs, dirs, &r, 1).ok());
  CHECK_FALSE(fs::Exists(t.dirs[0]));
}

TEST_CASE("native cgroups: update rewrites limits; -1 pids is max; v2 converts shares to weight") {
  Tree t;
  auto r = Resources(R"({"memory":{"limit":1048576}})");
  REQUIRE(SetupCgroups(t.hs, t.dirs, &r, 7).ok());
  REQUIRE(UpdateCgroups(t.hs, t.dirs, Resources(R"({"memory":{"limit":2097152},"pids":{"limit":-1}})")).ok());
  CHECK(t.Read("memory", "memory.limit_in_bytes") == "2097152");
  CHECK(t.Read("pids", "pids.max") == "max");

  testing::TempDir v2;
  std::vector<Hierarchy> hs{{.mount = v2.path(), .controllers = {"cpu", "memory", "pids"}, .v2 = true}};
  std::vector<std::filesystem::path> dirs{v2.path() / "ctr"};
  REQUIRE(fs::MkdirAll(dirs[0], 0755).ok());
  REQUIRE(UpdateCgroups(hs, dirs, Resources(R"({"cpu":{"shares":1024,"quota":20000},"memory":{"limit":4096}})")).ok());
  CHECK(fs::ReadFile(dirs[0] / "cpu.weight").value_or("") == "39");  // runc's conversion
  CHECK(fs::ReadFile(dirs[0] / "cpu.max").value_or("") == "20000 100000");
  CHECK(fs::ReadFile(dirs[0] / "memory.max").value_or("") == "4096");
}

TEST_CASE("native cgroups: the init's own move: v1 tasks fds, the cgroup2 dir for clone3, the rest skipped") {
  Tree t;
  auto v2 = t.dir.path() / "unified";
  t.hs.push_back(Hierarchy{.mount = v2, .controllers = {}, .v2 = true});
  t.dirs.push_back(v2 / "ctr");
  for (const auto& d : t.dirs) REQUIRE(fs::MkdirAll(d, 0755).ok());
  for (size_t i = 0; i < 3; ++i) REQUIRE(fs::WriteFileAtomic(t.dirs[i] / "tasks", "").ok());
  auto r = Resources(R"({"pids":{"limit":64}})");
  auto j = OpenSelfJoin(t.hs, t.dirs, &r);
  REQUIRE(j.ok());
  CHECK(j->fds.size() == 3);
  CHECK(j->self == std::vector<bool>{true, true, true, false});
  CHECK(j->cgroup2_dir.valid());
  CHECK(j->cgroup2_index == 3);
  std::vector<int> fds;
  for (const auto& fd : j->fds) fds.push_back(fd.get());
  REQUIRE(JoinSelf(fds).ok());
  for (const char* c : {"memory", "cpu", "pids"}) CHECK(t.Read(c, "tasks") == "0");
  // The runtime's join leaves out what the init did (and, cloned into it, the cgroup2 one).
  auto skip = j->self;
  skip[3] = true;
  REQUIRE(JoinCgroups(t.hs, t.dirs, &r, 4242, skip).ok());
  for (const char* c : {"memory", "cpu", "pids"}) CHECK(t.Read(c, "cgroup.procs") == "<none>");
  CHECK(fs::ReadFile(t.dirs[3] / "cgroup.procs").value_or("<none>") == "<none>");
  skip[3] = false;  // a plain clone: the runtime writes the pid there
  REQUIRE(JoinCgroups(t.hs, t.dirs, &r, 4242, skip).ok());
  CHECK(fs::ReadFile(t.dirs[3] / "cgroup.procs").value_or("<none>") == "4242");
}

TEST_CASE("native cgroups: a v1 cgroup without a tasks file fails the init's move, naming it") {
  Tree t;
  for (const auto& d : t.dirs) REQUIRE(fs::MkdirAll(d, 0755).ok());
  auto j = OpenSelfJoin(t.hs, t.dirs, nullptr);
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().msg.find((t.dirs[0] / "tasks").string()) != std::string::npos);
}
