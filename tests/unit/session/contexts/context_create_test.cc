// Contexts::CreateLocked as a step list (contexts_create.cc), driven in-process as any user
// over a gVisor session made by the fake runsc, the host effects through the recording Sys
// (tests/unit/session/host_fixture.h): the steps' order, the journal entry before anything is
// made, and a failed step's rollback removing the context's container and directory.
#include <doctest/doctest.h>

#include <algorithm>

#include "shim/session/contexts/contexts.h"
#include "shim/session/sessions.h"
#include "tests/unit/session/host_fixture.h"

using namespace sandshim;

namespace {

const std::vector<std::string> kSteps = {"place",       "spec",       "spare",      "journal",    "egress-identity",
                                         "directory",   "root-layer", "own-network", "secrets",   "write-spec",
                                         "container",   "charge-relay", "home-owner", "commit"};

std::vector<std::string> Twice(const std::vector<std::string>& v) {
  auto out = v;
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

}  // namespace

TEST_CASE("context create: the default context then the named one, each a step list journaled first, as any user") {
  testing::HostFixture f;
  session::Sessions s(f.Options());
  REQUIRE(s.Create("k1", "", f.Profile()).ok());
  session::Contexts contexts(f.Options(), s);
  std::vector<std::string> trace;
  contexts.TraceCreate(&trace);
  f.sys.calls.clear();
  auto made = contexts.Create("k1", {.name = "platform"});
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().msg));
  CHECK(made->name == "platform");
  CHECK(trace == Twice(kSteps));  // gVisor: "default" first, in the session's sandbox
  auto kinds = f.JournalKinds("k1");
  REQUIRE(kinds.size() >= 2);
  CHECK(kinds[kinds.size() - 2] == "session-context");
  CHECK(kinds.back() == "session-context");
  auto cdir = f.root / "@sessions" / "k1" / "contexts";
  // Its home made (root's 0700), then given to its user: through the seam.
  auto homes = f.sys.Calls({"mkdir", "chown"});
  REQUIRE(homes.size() == 3);
  CHECK(homes[0] == "mkdir " + (cdir / "default" / "home").string() + " 0700");
  CHECK(homes[1] == "mkdir " + (cdir / "platform" / "home").string() + " 0700");
  CHECK(homes[2] == "chown " + (cdir / "platform" / "home").string() + " " + std::to_string(::geteuid()) + ":" +
                        std::to_string(::getegid()));
  CHECK(fs::Exists(cdir / "platform" / "context.json"));
  CHECK(fs::ReadFile(f.runsc_log).value_or("").find("ctx-platform+k1") != std::string::npos);
  REQUIRE(s.Delete("k1").ok());
}

TEST_CASE("context create: a failing chown of its home stops the list; the rollback removes its container and directory") {
  testing::HostFixture f;
  session::Sessions s(f.Options());
  REQUIRE(s.Create("k2", "", f.Profile()).ok());
  auto cdir = f.root / "@sessions" / "k2" / "contexts" / "platform";
  f.sys.FailOn("chown " + (cdir / "home").string(), EPERM);
  session::Contexts contexts(f.Options(), s);
  std::vector<std::string> trace;
  contexts.TraceCreate(&trace);
  auto made = contexts.Create("k2", {.name = "platform"});
  REQUIRE_FALSE(made.ok());
  CHECK(made.error().msg.find("context platform: home: chown " + (cdir / "home").string()) == 0);
  CHECK(trace.back() == "home-owner");
  CHECK(std::count(trace.begin(), trace.end(), "commit") == 1);  // the default context's only
  CHECK_FALSE(fs::Exists(cdir));
  auto runsc = fs::ReadFile(f.runsc_log).value_or("");
  auto created = runsc.find("ctx-platform+k2");
  REQUIRE(created != std::string::npos);
  CHECK(runsc.find("delete --force", created) != std::string::npos);  // its container undone
  REQUIRE(s.Delete("k2").ok());
}
