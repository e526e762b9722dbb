// The spec fix-ups that make runsc do what runc would (shim/gvisor/spec_fixups.h), each on
// its own; spec_plan_test.cc has them in the plan's order.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "shim/gvisor/spec_fixups.h"

using namespace sandshim::runtime;

TEST_CASE("spec fixups: blkio weights are taken out for sandshim to write, throttles stay") {
  auto doc = boost::json::parse(R"({"linux":{"resources":{"blockIO":{"weight":300,"leafWeight":10,
    "weightDevice":[{"major":8,"minor":0,"weight":500}],"throttleReadBpsDevice":[{"major":8,"minor":0,"rate":1}]}}}})").as_object();
  auto w = TakeBlkioWeights(doc);
  CHECK(boost::json::serialize(w) == R"({"weight":300,"leafWeight":10,"weightDevice":[{"major":8,"minor":0,"weight":500}]})");
  CHECK(boost::json::serialize(doc) == R"({"linux":{"resources":{"blockIO":{"throttleReadBpsDevice":[{"major":8,"minor":0,"rate":1}]}}}})");
  auto none = boost::json::parse(R"({"linux":{}})").as_object();
  CHECK(TakeBlkioWeights(none).empty());
}

TEST_CASE("spec fixups: a pids limit is enforced inside as RLIMIT_NPROC, the host cgroup keeps a backstop") {
  auto doc = boost::json::parse(R"({"process":{"rlimits":[{"type":"RLIMIT_NOFILE","soft":1024,"hard":1024}]},
    "linux":{"resources":{"pids":{"limit":20},"memory":{"limit":1000}}}})").as_object();
  REQUIRE(FixupSpec(doc));
  // Host pids.max was dropped before (stayed "max"); now the limit with the sandbox's room.
  auto& pids = doc["linux"].as_object()["resources"].as_object()["pids"].as_object();
  CHECK(pids["limit"].to_number<int64_t>() == HostPidsLimit(20));
  // 64 host tasks per guest process (a ptrace fork bomb needs ~55), never more than half the
  // host's pids unless 16 per process needs more.
  CHECK(HostPidsLimitFor(64, 32768) == kSandboxOwnTasks + 64 * 64);
  CHECK(HostPidsLimitFor(1024, 32768) == kSandboxOwnTasks + 1024 * 16);
  CHECK(HostPidsLimitFor(512, 32768) == 16384);
  CHECK(HostPidsLimitFor(1024, 4194304) == kSandboxOwnTasks + 1024 * 64);
  auto unlimited = boost::json::parse(R"({"process":{},"linux":{"resources":{"pids":{"limit":0}}}})").as_object();
  REQUIRE(FixupSpec(unlimited));
  CHECK_FALSE(unlimited["linux"].as_object()["resources"].as_object().contains("pids"));
  CHECK(doc["linux"].as_object()["resources"].as_object().contains("memory"));
  auto& rl = doc["process"].as_object()["rlimits"].as_array();
  REQUIRE(rl.size() == 2);
  CHECK(rl[1].as_object()["type"] == "RLIMIT_NPROC");
  CHECK(rl[1].as_object()["hard"].to_number<int64_t>() == 20);
  auto plain = boost::json::parse(R"({"process":{},"linux":{"resources":{}}})").as_object();
  CHECK_FALSE(FixupSpec(plain));
}

TEST_CASE("spec fixups: clone3's ENOSYS rule becomes an allow (runsc answers every errno rule with EPERM)") {
  auto parse = [](const char* rules) {
    return boost::json::parse(std::string(R"({"linux":{"seccomp":{"defaultAction":"SCMP_ACT_ERRNO","syscalls":)") + rules + "}}}")
        .as_object();
  };
  auto rules_of = [](boost::json::object& doc) -> boost::json::array& {
    return doc["linux"].as_object()["seccomp"].as_object()["syscalls"].as_array();
  };
  auto alone = parse(R"([{"names":["read"],"action":"SCMP_ACT_ALLOW"},{"names":["clone3"],"action":"SCMP_ACT_ERRNO","errnoRet":38}])");
  REQUIRE(FixupSpec(alone));
  CHECK(rules_of(alone)[1].as_object()["action"] == "SCMP_ACT_ALLOW");
  CHECK_FALSE(rules_of(alone)[1].as_object().contains("errnoRet"));
  auto shared = parse(R"([{"names":["clone3","bpf"],"action":"SCMP_ACT_ERRNO","errnoRet":38}])");
  REQUIRE(FixupSpec(shared));
  REQUIRE(rules_of(shared).size() == 2);
  CHECK(rules_of(shared)[0].as_object()["names"] == boost::json::array{"bpf"});  // the rest keep their answer
  CHECK(rules_of(shared)[1].as_object()["names"] == boost::json::array{"clone3"});
  CHECK(rules_of(shared)[1].as_object()["action"] == "SCMP_ACT_ALLOW");
  // Left as they are: EPERM asked for; clone3 named twice; conditions; no clone3 at all.
  for (const char* r : {R"([{"names":["clone3"],"action":"SCMP_ACT_ERRNO","errnoRet":1}])",
                        R"([{"names":["clone3"],"action":"SCMP_ACT_ERRNO","errnoRet":38},{"names":["clone3"],"action":"SCMP_ACT_KILL"}])",
                        R"([{"names":["clone3"],"action":"SCMP_ACT_ERRNO","errnoRet":38,"args":[{"index":0,"value":1,"op":"SCMP_CMP_EQ"}]}])",
                        R"([{"names":["read"],"action":"SCMP_ACT_ALLOW"}])"}) {
    auto doc = parse(r);
    CHECK_FALSE(FixupSpec(doc));
  }
}

TEST_CASE("spec fixups: the image's own /tmp instead of runsc's tmpfs") {
  namespace json = boost::json;
  auto doc = json::parse(R"({"root":{"path":"r"},"mounts":[{"destination":"/proc","type":"proc"}]})").as_object();
  CHECK_FALSE(MountsTmp(doc));
  BindImageTmp(doc, "/rootfs/tmp");
  CHECK(MountsTmp(doc));
  const auto& m = doc["mounts"].as_array().back().as_object();
  CHECK(m.at("source").as_string() == "/rootfs/tmp");
  CHECK(m.at("type").as_string() == "bind");
  CHECK(m.at("options").as_array() == json::array{"rbind", "rw"});
  // A read-only rootfs keeps a read-only /tmp, as under runc.
  auto ro = json::parse(R"({"root":{"path":"r","readonly":true}})").as_object();
  BindImageTmp(ro, "/rootfs/tmp");
  CHECK(ro["mounts"].as_array().back().as_object().at("options").as_array() == json::array{"rbind", "ro"});
  // The spec's own /tmp (docker --tmpfs /tmp, -v x:/tmp/) wins.
  CHECK(MountsTmp(json::parse(R"({"mounts":[{"destination":"/tmp/","type":"tmpfs"}]})").as_object()));
  CHECK(MountsTmp(json::parse(R"({"mounts":[{"destination":"//tmp","type":"tmpfs"}]})").as_object()));
  CHECK_FALSE(MountsTmp(json::parse(R"({"mounts":[{"destination":"/tmp/x","type":"tmpfs"}]})").as_object()));
}
