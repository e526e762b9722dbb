// The system ControlNetnsKeeper, the one production uses: it needs CAP_SYS_ADMIN (a netns
// mount), so these cases run as root only. The tests that drive the gVisor backend over the
// fake runsc (containers_test, sessions_test, the probe's) use the CallerNetns fake instead
// and run as any user; the real namespace with a real sandbox in it is the attack_host suite's.
#include <doctest/doctest.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/linux/netns.h"
#include "shim/runsc/control_netns.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;

TEST_CASE("control netns: the system keeper's private and shared namespaces (root only)") {
  if (::geteuid() != 0) return;
  testing::TempDir d;
  auto& keeper = runsc::SystemControlNetns();

  auto priv = keeper.MakePrivate(d.path() / "control.netns");
  REQUIRE_MESSAGE(priv.ok(), (priv.ok() ? "" : priv.error().msg));
  CHECK(*priv == d.path() / "control.netns");
  CHECK(net::IsNetns(*priv));
  REQUIRE(keeper.RemovePrivate(*priv).ok());
  CHECK_FALSE(fs::Exists(*priv));

  // Two holders share one namespace; it goes with the last.
  auto root = d.path() / "root";
  REQUIRE(fs::MkdirAll(root).ok());
  auto shared = keeper.SharedFor(root);
  CHECK(shared == root / "@control" / "netns");
  REQUIRE(keeper.Hold(shared, "rid-a", "a").ok());
  REQUIRE(keeper.Hold(shared, "rid-b", "b").ok());
  CHECK(net::IsNetns(shared));
  REQUIRE(keeper.Release(shared, "rid-a").ok());
  CHECK(net::IsNetns(shared));
  REQUIRE(keeper.Release(shared, "rid-b").ok());
  CHECK_FALSE(net::IsNetns(shared));
  CHECK_FALSE(fs::Exists(root / "@control"));
  CHECK(keeper.Release(shared, "rid-b").ok());  // idempotent
}
