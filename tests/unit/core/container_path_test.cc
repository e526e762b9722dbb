// Mount-aware path lookup: which mount provides a container path, and LookPath through a
// bind source (docker --init) without leaving it.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "shim/core/container_path.h"
#include "shim/core/look_path.h"
#include "shim/core/unique_fd.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
namespace fs = std::filesystem;

TEST_CASE("container path: lexical cleaning") {
  CHECK(CleanContainerPath("/a//b/./c/") == "/a/b/c");
  CHECK(CleanContainerPath("") == "/");
  CHECK(CleanContainerPath("/") == "/");
  CHECK(CleanContainerPath("/a/../b") == "/a/../b");  // resolved beneath a root, not here
}

TEST_CASE("covering mount: exact file, directory prefix, component boundary, last wins") {
  std::vector<MountView> m{{"/sbin/docker-init", "/usr/bin/docker-init", true},
                           {"/data", "/srv/d", true},
                           {"/data/sub", "tmpfs", false}};
  auto init = FindCoveringMount(m, "/sbin/docker-init");
  REQUIRE(init);
  CHECK(init->mount == &m[0]);
  CHECK(init->rel == "");
  CHECK_FALSE(FindCoveringMount(m, "/sbin/docker-initx"));  // not a path component
  CHECK_FALSE(FindCoveringMount(m, "/sbin"));
  auto d = FindCoveringMount(m, "/data//bin/x");
  REQUIRE(d);
  CHECK(d->mount == &m[1]);
  CHECK(d->rel == "bin/x");
  CHECK(FindCoveringMount(m, "/data/sub/x")->mount == &m[2]);
  m.push_back({"/data/", "/srv/e", true});  // a later mount on /data hides /data/sub
  CHECK(FindCoveringMount(m, "/data/sub/x")->mount == &m[3]);
  std::vector<MountView> root{{"/", "/r", true}};
  CHECK(FindCoveringMount(root, "/bin/sh")->rel == "bin/sh");
}

namespace {
void MakeExe(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "#!/bin/sh\n";
  fs::permissions(p, fs::perms::owner_all);
}
}  // namespace

TEST_CASE("look path: a bind mount provides the command, the rootfs need not have it") {
  testing::TempDir t;
  auto rootfs = t.path() / "rootfs", host = t.path() / "host";
  fs::create_directories(rootfs / "sbin");
  MakeExe(host / "docker-init");
  MakeExe(host / "tools" / "bin" / "tool");
  UniqueFd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(root.valid());
  // Without the mounts (the old lookup): not found, runc's words.
  auto old = LookPath(root.get(), "/sbin/docker-init", {}, "/");
  REQUIRE_FALSE(old);
  CHECK(old.error().msg.find("no such file or directory") != std::string::npos);
  std::vector<MountView> m{{"/sbin/docker-init", (host / "docker-init").string(), true},
                           {"/opt/tools", (host / "tools").string(), true}};
  CHECK(LookPath(root.get(), m, "/sbin/docker-init", {}, "/").value() == "/sbin/docker-init");
  CHECK(LookPath(root.get(), m, "tool", {"PATH=/nope:/opt/tools/bin"}, "/").value() == "/opt/tools/bin/tool");
  // A non-executable or missing file in the bind source is still missing.
  std::ofstream(host / "tools" / "bin" / "plain") << "x";
  CHECK_FALSE(LookPath(root.get(), m, "/opt/tools/bin/plain", {}, "/"));
  CHECK_FALSE(LookPath(root.get(), m, "/opt/tools/bin/none", {}, "/"));
}

TEST_CASE("look path: resolution stays inside the bind source") {
  testing::TempDir t;
  auto rootfs = t.path() / "rootfs", src = t.path() / "src";
  fs::create_directories(rootfs);
  fs::create_directories(src);
  MakeExe(t.path() / "outside" / "evil");
  // An absolute link and a ".." walk both aim at the host file next to the source.
  fs::create_symlink(t.path() / "outside" / "evil", src / "abs");
  fs::create_symlink("../outside/evil", src / "rel");
  UniqueFd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  std::vector<MountView> m{{"/m", src.string(), true}};
  CHECK_FALSE(LookPath(root.get(), m, "/m/abs", {}, "/"));
  CHECK_FALSE(LookPath(root.get(), m, "/m/rel", {}, "/"));
  CHECK_FALSE(LookPath(root.get(), m, "/m/../../outside/evil", {}, "/"));
  // A non-bind mount (tmpfs) is filled only at run time: it may provide anything.
  std::vector<MountView> tmp{{"/t", "tmpfs", false}};
  CHECK(LookPath(root.get(), tmp, "/t/x", {}, "/"));
}
