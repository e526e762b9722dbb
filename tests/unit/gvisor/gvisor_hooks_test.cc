// gVisor hooks: the runtime-side kinds leave the spec runsc gets; the state is the container's.
#include <doctest/doctest.h>

#include "shim/gvisor/gvisor_hooks.h"

using namespace sandshim;
using namespace sandshim::runtime;

TEST_CASE("gvisor hooks: runtime-side kinds are stripped, container-side ones stay for runsc") {
  auto doc = boost::json::parse(R"({"hooks":{"prestart":[{"path":"/a"}],"createRuntime":[{"path":"/b"}],
    "createContainer":[{"path":"/c"}],"startContainer":[{"path":"/d"}],"poststart":[{"path":"/e"}],
    "poststop":[{"path":"/f"}]}})").as_object();
  StripRuntimeHooks(doc);
  auto& h = doc["hooks"].as_object();
  CHECK(h.size() == 2);
  CHECK(h.contains("createContainer"));
  CHECK(h.contains("startContainer"));
  auto none = boost::json::parse(R"({"process":{}})").as_object();
  StripRuntimeHooks(none);
  CHECK_FALSE(none.contains("hooks"));
}

TEST_CASE("gvisor hooks: the state names the container and the caller's bundle") {
  ContainerRecord rec;
  rec.id = "web-1";
  rec.bundle = "/srv/bundles/web-1";
  auto st = boost::json::parse(HookStateOf(rec, "creating", 42)).as_object();
  CHECK(st["id"] == "web-1");
  CHECK(st["bundle"] == "/srv/bundles/web-1");
  CHECK(st["status"] == "creating");
  CHECK(st["pid"].to_number<int>() == 42);
}
