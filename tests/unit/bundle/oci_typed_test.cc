// The typed OCI model: a field sandshim reads that has the wrong type is an error naming it,
// never a default (issue #16 P2). Each of these read as a default or aborted before.
#include <doctest/doctest.h>

#include "bundle/json_field.h"
#include "bundle/oci_process.h"
#include "bundle/process.h"
#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/native/plan.h"
#include "shim/runsc/exec_args.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
namespace json = boost::json;

static std::string SpecWith(const std::string& process_extra, const std::string& top_extra = "") {
  return R"({"ociVersion":"1.0.2","root":{"path":"rootfs"},"process":{"args":["sh"],"cwd":"/")" + process_extra +
         "}" + top_extra + R"(,"linux":{"namespaces":[{"type":"mount"}]}})";
}

static std::string SpecError(const std::string& text) {
  auto s = bundle::ParseSpec(text);
  return s.ok() ? std::string("(parsed)") : s.error().msg;
}

static json::object Obj(std::string_view text) { return json::parse(text).as_object(); }

TEST_CASE("typed spec: a mistyped uid or gid is an error naming the field, not uid 0") {
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":"1000","gid":0})")) == "config.json: process.user.uid: not a number");
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":1,"gid":"0"})")) == "config.json: process.user.gid: not a number");
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":1,"gid":1,"additionalGids":["x"]})")) ==
        "config.json: process.user.additionalGids[0]: not a number");
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":-1,"gid":0})")) == "config.json: process.user.uid: must not be negative");
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":4294967296,"gid":0})")) == "config.json: process.user.uid: out of range");
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":1.5,"gid":0})")) == "config.json: process.user.uid: not an integer");
  CHECK(SpecError(SpecWith(R"(,"user":{"uid":1,"gid":0,"additionalGids":[5,-2]})")) ==
        "config.json: process.user.additionalGids[1]: must not be negative");
}

TEST_CASE("typed spec: caps, rlimits, mounts, mappings and resources are type-checked") {
  CHECK(SpecError(SpecWith(R"(,"capabilities":{"bounding":"CAP_KILL"})")) ==
        "config.json: process.capabilities.bounding: not an array");
  CHECK(SpecError(SpecWith(R"(,"capabilities":{"effective":[7]})")) ==
        "config.json: process.capabilities.effective[0]: not a string");
  CHECK(SpecError(SpecWith(R"(,"rlimits":[{"type":"RLIMIT_NOFILE","soft":"1024","hard":1024}])")) ==
        "config.json: process.rlimits[0].soft: not a number");
  CHECK(SpecError(SpecWith(R"(,"rlimits":[{"type":"RLIMIT_NOFILE","soft":-1,"hard":1}])")) ==
        "config.json: process.rlimits[0].soft: must not be negative");
  CHECK(SpecError(SpecWith(R"(,"terminal":"yes")")) == "config.json: process.terminal: not a boolean");
  CHECK(SpecError(SpecWith(R"(,"oomScoreAdj":5000)")) == "config.json: process.oomScoreAdj: out of range (-1000..1000)");
  CHECK(SpecError(SpecWith("", R"(,"mounts":["/tmp"])")) == "config.json: mounts[0]: not an object");
  CHECK(SpecError(SpecWith("", R"(,"mounts":[{"destination":"/x","options":"ro"}])")) ==
        "config.json: mounts[0].options: not an array");
  CHECK(SpecError(R"({"ociVersion":"1","process":{"args":["a"],"cwd":"/"},"linux":{"uidMappings":[{"containerID":0,"hostID":"1000","size":1}]}})") ==
        "config.json: linux.uidMappings[0].hostID: not a number");
  CHECK(SpecError(R"({"ociVersion":"1","linux":{"resources":{"memory":{"limit":"1g"}}}})") ==
        "config.json: linux.resources.memory.limit: not a number");
  CHECK(SpecError(R"({"ociVersion":"1","linux":{"maskedPaths":"/proc/kcore"}})") ==
        "config.json: linux.maskedPaths: not an array");
  CHECK(SpecError(R"({"ociVersion":"1","root":{"path":7}})") == "config.json: root.path: not a string");
}

TEST_CASE("typed spec: a well-typed spec reads into the typed views") {
  auto s = bundle::ParseSpec(SpecWith(
      R"(,"user":{"uid":1000,"gid":100,"additionalGids":[10,20]},"rlimits":[{"type":"RLIMIT_NOFILE","soft":18446744073709551615,"hard":1}],"oomScoreAdj":-500,"user2":null)",
      R"(,"mounts":[{"destination":"/proc","type":"proc","source":"proc"}])"));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  REQUIRE(s->process);
  CHECK(s->process->user.uid == 1000);
  CHECK(s->process->user.additional_gids == std::vector<uint32_t>{10, 20});
  CHECK(s->process->rlimits.at(0).soft == UINT64_MAX);
  CHECK(s->process->oom_score_adj == -500);
  CHECK(s->mounts.at(0).type == "proc");
  // null reads as absent, as Go's decoder (and runc) read it.
  CHECK(bundle::ParseSpec(SpecWith(R"(,"user":{"uid":null,"gid":0})")).ok());
}

TEST_CASE("native plan: a string uid in an exec process is an error, not root") {
  auto p = native::ProcessPlanFrom(Obj(R"({"args":["id"],"cwd":"/","user":{"uid":"1000","gid":0}})"));
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().msg == "process: user.uid: not a number");
  // Before: to_number threw on a string gid, and nothing caught it (abort).
  auto g = native::ProcessPlanFrom(Obj(R"({"args":["id"],"cwd":"/","user":{"uid":1,"gid":1,"additionalGids":["x"]}})"));
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().msg == "process: user.additionalGids[0]: not a number");
  auto ok = native::ProcessPlanFrom(Obj(R"({"args":["id"],"cwd":"/","user":{"uid":1000,"gid":100,"additionalGids":[7]}})"));
  REQUIRE(ok.ok());
  CHECK(ok->uid == 1000);
  CHECK(ok->additional_gids == std::vector<uint32_t>{7});
}

TEST_CASE("gVisor exec args: a mistyped or negative id is an error, not uid 0") {
  auto a = runsc::ExecArgsFor(Obj(R"({"args":["id"],"cwd":"/","capabilities":{},"user":{"uid":"1000"}})"), "c", false);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().msg == "process: user.uid: not a number");
  auto n = runsc::ExecArgsFor(Obj(R"({"args":["id"],"cwd":"/","capabilities":{},"user":{"uid":1,"gid":-5}})"), "c", false);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().msg == "process: user.gid: must not be negative");
  auto g = runsc::ExecArgsFor(Obj(R"({"args":["id"],"cwd":"/","capabilities":{},"user":{"additionalGids":[1,"2"]}})"), "c", false);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().msg == "process: user.additionalGids[1]: not a number");
  auto ok = runsc::ExecArgsFor(Obj(R"({"args":["id"],"cwd":"/","capabilities":{},"user":{"uid":1000,"gid":7,"additionalGids":[9]}})"), "c", false);
  REQUIRE(ok.ok());
  REQUIRE(ok->has_value());
  CHECK((**ok).at("KUID").to_number<int64_t>() == 1000);
  CHECK((**ok).at("ExtraKGIDs").as_array().at(0).to_number<int64_t>() == 9);
}

TEST_CASE("exec --process FILE: a mistyped field fails the load, naming the file and field") {
  testing::TempDir d;
  REQUIRE(fs::WriteFileAtomic(d.path() / "p.json", R"({"args":["id"],"cwd":"/","user":{"uid":"0"}})", 0600, false).ok());
  auto p = bundle::LoadProcess(d.path() / "p.json");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().msg == "process " + (d.path() / "p.json").string() + ": user.uid: not a number");
}

TEST_CASE("json fields: one integer reading for every caller") {
  json::value neg = -1, big = json::value(uint64_t{1} << 40), str = "1";
  CHECK(bundle::NumberAs<uint64_t>(neg, "d", "f").error().msg == "d: f: must not be negative");
  CHECK(bundle::NumberAs<uint32_t>(big, "d", "f").error().msg == "d: f: out of range");
  CHECK(bundle::NumberAs<int64_t>(str, "d", "f").error().msg == "d: f: not a number");
  CHECK(*bundle::NumberAs<int>(neg, "d", "f") == -1);
  CHECK(*bundle::NumberAs<uint64_t>(big, "d", "f") == (uint64_t{1} << 40));
}
