// The sandbox control client's pure parts: an OCI process as gVisor's ExecArgs, the
// answers of its control server, and which runsc versions get the direct path.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "shim/runsc/control.h"
#include "shim/runsc/exec_args.h"

using namespace sandshim;
namespace json = boost::json;

static json::object Process(const char* text) { return json::parse(text).as_object(); }

TEST_CASE("exec args: what runsc exec --process would send, NET_RAW stripped unless allowed") {
  auto p = Process(R"({"args":["sh","-c","id"],"env":["A=1","PATH=/bin"],"cwd":"/workspace",
    "user":{"uid":1000,"gid":1001,"additionalGids":[5,6]},
    "capabilities":{"bounding":["CAP_KILL","CAP_NET_RAW"],"effective":["CAP_KILL"],"permitted":["CAP_KILL"],
                    "ambient":[]}})");
  auto a = runsc::ExecArgsFor(p, "sshim-1", /*net_raw=*/false);
  REQUIRE(a.ok());
  REQUIRE(a->has_value());
  const auto& o = **a;
  CHECK(json::serialize(o.at("argv")) == R"(["sh","-c","id"])");
  CHECK(json::serialize(o.at("envv")) == R"(["A=1","PATH=/bin"])");
  CHECK(o.at("wd") == "/workspace");
  CHECK(o.at("KUID").to_number<int64_t>() == 1000);
  CHECK(o.at("KGID").to_number<int64_t>() == 1001);
  CHECK(json::serialize(o.at("ExtraKGIDs")) == "[5,6]");
  CHECK(o.at("ContainerID") == "sshim-1");
  CHECK(o.at("StdioIsPty") == false);
  const auto& caps = o.at("Capabilities").as_object();
  CHECK(caps.at("BoundingCaps").to_number<uint64_t>() == (uint64_t{1} << 5));  // CAP_KILL; NET_RAW (13) gone
  CHECK(caps.at("EffectiveCaps").to_number<uint64_t>() == (uint64_t{1} << 5));
  CHECK(caps.at("InheritableCaps").to_number<uint64_t>() == 0);
  CHECK(caps.at("AmbientCaps").to_number<uint64_t>() == 0);

  auto raw = runsc::ExecArgsFor(p, "sshim-1", /*net_raw=*/true);
  REQUIRE(raw.ok());
  CHECK((**raw).at("Capabilities").as_object().at("BoundingCaps").to_number<uint64_t>() ==
        ((uint64_t{1} << 5) | (uint64_t{1} << 13)));
}

TEST_CASE("exec args: a terminal or no capabilities of its own goes through runsc exec; bad input fails") {
  auto tty = Process(R"({"terminal":true,"args":["sh"],"cwd":"/","capabilities":{}})");
  auto r = runsc::ExecArgsFor(tty, "c", false);
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
  auto nocaps = Process(R"({"args":["sh"],"cwd":"/"})");
  r = runsc::ExecArgsFor(nocaps, "c", false);
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
  CHECK_FALSE(runsc::ExecArgsFor(Process(R"({"args":["sh"],"cwd":"/","capabilities":{"bounding":["CAP_NOPE"]}})"), "c",
                                 false)
                  .ok());
  CHECK_FALSE(runsc::ExecArgsFor(Process(R"({"args":[],"cwd":"/","capabilities":{}})"), "c", false).ok());
  CHECK_FALSE(runsc::ExecArgsFor(Process(R"({"args":["sh"],"cwd":"rel","capabilities":{}})"), "c", false).ok());
}

TEST_CASE("control answers: result, remote error, malformed") {
  auto ok = runsc::ParseControlAnswer(json::parse(R"({"success":true,"err":"","result":1047})"));
  REQUIRE(ok.ok());
  CHECK(ok->to_number<int>() == 1047);
  auto remote = runsc::ParseControlAnswer(json::parse(R"({"success":false,"err":"no such process","result":null})"));
  REQUIRE_FALSE(remote.ok());
  CHECK(remote.error().msg == "sandbox: no such process");
  CHECK_FALSE(runsc::ParseControlAnswer(json::parse("[1]")).ok());
  CHECK_FALSE(runsc::ParseControlAnswer(json::parse(R"({"result":1})")).ok());
  CHECK_FALSE(runsc::ParseControlAnswer(json::parse(R"({"success":"yes"})")).ok());
}

TEST_CASE("control protocol: only for runsc versions whose names were checked") {
  CHECK(runsc::ControlProtocolFor("runsc version 0.0~20221219.0") == "urpc-20221219");
  CHECK(runsc::ControlProtocolFor("runsc version release-20240101.0").empty());
  CHECK(runsc::ControlProtocolFor("").empty());
}

TEST_CASE("control peer: the sandbox process itself, by pid and start time (a recycled pid is refused)") {
  proc::ProcessId sandbox{4242, 777};
  CHECK(runsc::CheckControlPeer(4242, 777, sandbox).ok());
  CHECK_FALSE(runsc::CheckControlPeer(4243, 777, sandbox).ok());       // another process
  CHECK_FALSE(runsc::CheckControlPeer(4242, 999, sandbox).ok());       // same pid, started later
  CHECK_FALSE(runsc::CheckControlPeer(4242, std::nullopt, sandbox).ok());  // gone meanwhile
  CHECK(runsc::CheckControlPeer(4242, std::nullopt, {4242, 0}).ok());  // start not recorded: pid only
}
