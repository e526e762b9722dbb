// Sessions::Create as a step list (session_create.cc) driven in-process as any user: the real
// Containers and gVisor backend over the fake runsc (as sessions_test.cc), and the session
// layer's host effects through the recording Sys (tests/fakes/recording_sys.h), whose file
// calls happen for real in the temp dir while mounts are only recorded. What is asserted:
// the steps' order, that each host effect comes after its journal entry, and that a failed
// step's rollback undoes what was made (through the same seam).
#include <doctest/doctest.h>

#include <algorithm>

#include "bundle/session_spec.h"
#include "shim/core/fs.h"
#include "shim/session/sessions.h"
#include "tests/unit/session/host_fixture.h"

using namespace sandshim;


TEST_CASE("session create: the step list in order, each host effect after its journal entry, as any user") {
  testing::HostFixture f;
  session::Sessions s(f.Options());
  std::vector<std::string> trace;
  s.TraceCreate(&trace);
  auto made = s.Create("c1", "one", f.Profile());
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().msg));
  CHECK(trace == std::vector<std::string>{"name", "files", "workspace-guard", "id-range", "root-layer",
                                          "shared-workspace-parent", "workspace-as-user", "spec", "record",
                                          "proxy-network", "container", "commit"});
  CHECK(f.JournalKinds("c1") ==
        std::vector<std::string>{"session-name", "workspace-guard", "session-layer", "session-container"});
  auto dir = f.root / "@sessions" / "c1";
  auto link = f.root / "@sessions" / "@names" / "one";
  // The host effects, in order: the name, the workspace's nosuid guard, the base's overlay.
  auto effects = f.sys.Calls({"symlink", "open_tree", "mount_setattr", "move_mount", "mount"});
  REQUIRE(effects.size() == 5);
  CHECK(effects[0] == "symlink " + link.string() + " -> c1");
  CHECK(effects[1] == "open_tree " + f.ws.string());
  CHECK(effects[2] == "mount_setattr tree:" + f.ws.string() + " recursive +nosuid");
  CHECK(effects[3] == "move_mount tree:" + f.ws.string() + " " + f.ws.string());
  CHECK(effects[4] == "mount sandshim-layer " + (dir / "rootfs").string() + " overlay nosuid|nodev lowerdir=" +
                          f.rootfs.string() + ",upperdir=" + (dir / "mountpoints/upper").string() +
                          ",workdir=" + (dir / "mountpoints/work").string());
  CHECK(fs::ReadFile(f.runsc_log).value_or("").find("create --bundle=") != std::string::npos);
  CHECK(s.Get("one")->status == "running");  // the link is real: found by name

  f.sys.calls.clear();
  REQUIRE(s.Delete("one").ok());
  // The journal undone backwards through the same seam: the overlay, then the name.
  auto undone = f.sys.Calls({"umount", "unlink"});
  REQUIRE(undone.size() >= 2);
  CHECK(undone.front() == "umount " + (dir / "rootfs").string() + " detach");
  CHECK(std::find(undone.begin(), undone.end(), "unlink " + link.string()) != undone.end());
  CHECK_FALSE(fs::Exists(dir));
  CHECK_FALSE(fs::Exists(link));
}

TEST_CASE("session create: a mount that fails stops the list, and the rollback undoes what the journal names") {
  testing::HostFixture f;
  f.sys.FailOn("mount sandshim-layer", EPERM);
  session::Sessions s(f.Options());
  std::vector<std::string> trace;
  s.TraceCreate(&trace);
  auto made = s.Create("c2", "two", f.Profile());
  REQUIRE_FALSE(made.ok());
  auto dir = f.root / "@sessions" / "c2";
  CHECK(made.error().msg.find("mount overlay on " + (dir / "rootfs").string()) == 0);
  CHECK(trace.back() == "root-layer");  // nothing after it ran
  // The layer was journaled before its mount: the rollback unmounts it, and removes the name.
  int failed = f.sys.IndexOf("mount sandshim-layer");
  int unmounted = f.sys.IndexOf("umount " + (dir / "rootfs").string() + " detach");
  int unlinked = f.sys.IndexOf("unlink " + (f.root / "@sessions" / "@names" / "two").string());
  CHECK(failed >= 0);
  CHECK(unmounted > failed);
  CHECK(unlinked > unmounted);
  CHECK_FALSE(fs::Exists(dir));
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "@names" / "two"));
  CHECK(fs::ReadFile(f.runsc_log).value_or("").find("sess-c2") == std::string::npos);  // no sandbox
}
