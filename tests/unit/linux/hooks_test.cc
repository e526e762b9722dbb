// shim/linux/hooks: the order hooks run in and what a failing one does.
#include <doctest/doctest.h>

#include "shim/core/fs.h"
#include "shim/linux/hooks.h"
#include "shim/native/plan.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::native;

static Hook Sh(const std::string& script) { return Hook{"/bin/sh", {"sh", "-c", script}, {}, 5}; }

TEST_CASE("hooks: poststart/poststop failures warn and the following hooks still run (runtime-spec)") {
  testing::TempDir t;
  auto log = (t.path() / "order").string();
  std::vector<Hook> hooks = {Sh("echo 1 >> " + log), Sh("exit 3"), Sh("echo 3 >> " + log), Sh("exit 4")};
  auto failed = RunHooksWarn(hooks, "poststop", "{}");
  REQUIRE(failed.size() == 2);
  CHECK(failed[0].find("poststop hook") != std::string::npos);
  CHECK(failed[0].find("status 3") != std::string::npos);
  CHECK(failed[1].find("status 4") != std::string::npos);
  CHECK(fs::ReadFile(log).value_or("") == "1\n3\n");
}

TEST_CASE("hooks: other kinds stop at the first failure (it fails create)") {
  testing::TempDir t;
  auto log = (t.path() / "order").string();
  auto s = RunHooks({Sh("echo 1 >> " + log), Sh("exit 3"), Sh("echo 3 >> " + log)}, "createRuntime", "{}");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg.find("createRuntime hook") != std::string::npos);
  CHECK(fs::ReadFile(log).value_or("") == "1\n");
}

TEST_CASE("hooks: the state reaches each hook on stdin with its status and pid") {
  testing::TempDir t;
  auto out = (t.path() / "state").string();
  REQUIRE(RunHook(Sh("cat > " + out), StateWith(R"({"id":"c1"})", "created", 42)).ok());
  auto text = fs::ReadFile(out).value_or("");
  CHECK(text.find(R"("status":"created")") != std::string::npos);
  CHECK(text.find(R"("pid":42)") != std::string::npos);
}

TEST_CASE("hooks: a hook past its timeout is killed and fails, without waiting it out") {
  auto t0 = std::chrono::steady_clock::now();
  auto s = RunHook(Hook{"/bin/sleep", {"sleep", "30"}, {}, 1}, "{}");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().err_no == ETIMEDOUT);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("hooks: the hook's env is the spec's, exactly, and its path is what runs") {
  testing::TempDir t;
  auto out = (t.path() / "env").string();
  // argv[0] is the spec's args[0], not the path: runc runs `path` with `args` as given.
  REQUIRE(RunHook(Hook{"/bin/sh", {"not-a-program", "-c", "env > " + out}, {"ONLY=1"}, 5}, "{}").ok());
  auto env = fs::ReadFile(out).value_or("");
  CHECK(env.find("ONLY=1\n") != std::string::npos);
  CHECK(env.find("HOME=") == std::string::npos);
}

TEST_CASE("hooks: one runner for both backends, runc's semantics per kind, the config's annotations") {
  testing::TempDir t;
  auto log = (t.path() / "order").string();
  bundle::Spec spec;
  spec.annotations = {{std::string("org.example"), std::string("v")}};  // (operator= of a literal: GCC 12 -Wrestrict false positive)
  auto sh = [](const std::string& script) {
    return boost::json::object{{"path", "/bin/sh"}, {"args", boost::json::array{"sh", "-c", script}}};
  };
  spec.doc["hooks"] = boost::json::object{
      {"poststop", boost::json::array{sh("exit 1"), sh("cat >> " + log)}},
      {"prestart", boost::json::array{sh("exit 1"), sh("echo never >> " + log)}}};
  std::string base = R"({"id":"c","status":"creating","pid":7,"annotations":{"dev.sandshim.backend":"native"}})";
  CHECK(RunLifecycleHooks(spec, "poststop", base).ok());
  auto text = fs::ReadFile(log).value_or("");
  CHECK(text.find(R"("status":"stopped")") != std::string::npos);
  CHECK(text.find(R"("annotations":{"org.example":"v"})") != std::string::npos);
  CHECK(text.find("dev.sandshim") == std::string::npos);
  CHECK_FALSE(RunLifecycleHooks(spec, "prestart", base).ok());
  CHECK(fs::ReadFile(log).value_or("").find("never") == std::string::npos);
  CHECK(LifecycleState(spec, "prestart", base).find(R"("status":"created")") != std::string::npos);
}
