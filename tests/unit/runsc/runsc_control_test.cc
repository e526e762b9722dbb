// The sandbox control client's pure parts: an OCI process as gVisor's ExecArgs, the
// answers of its control server, and where it listens (the kind the probe recorded).
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

TEST_CASE("control protocol: the recorded (probed) name as a socket kind; older records are abstract") {
  using runsc::ControlSocket;
  CHECK(runsc::ControlSocketOf(runsc::kControlAbstract) == ControlSocket::kAbstract);
  CHECK(runsc::ControlSocketOf(runsc::kControlPath) == ControlSocket::kPath);
  CHECK(runsc::ControlSocketOf("urpc-20221219") == ControlSocket::kAbstract);  // records made before the probe
  CHECK(runsc::ControlSocketOf("") == ControlSocket::kNone);
  CHECK(runsc::ControlSocketOf("runsc version 0.0~20240729.0") == ControlSocket::kNone);
  CHECK(runsc::ControlSocketPath("/r/@runsc", "sshim-1") == "/r/@runsc/runsc-sshim-1.sock");
}

TEST_CASE("control dir: a path socket is ours only in a directory of ours that no one else may enter") {
  CHECK(runsc::CheckControlDir(0, 040700, 0).ok());
  CHECK_FALSE(runsc::CheckControlDir(1000, 040700, 0).ok());  // someone else's directory
  CHECK_FALSE(runsc::CheckControlDir(0, 040711, 0).ok());     // raw runsc's default: others may search it
  CHECK_FALSE(runsc::CheckControlDir(0, 040770, 0).ok());
  auto e = runsc::CheckControlDir(0, 040755, 0);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().msg.find("0755") != std::string::npos);
}

TEST_CASE("exec args: GuestFDs number the sent files in order") {
  json::object a;
  runsc::SetGuestFds(a, 4);
  CHECK(json::serialize(a) == R"({"GuestFDs":[0,1,2,3]})");
}

TEST_CASE("control peer: the sandbox process itself, by pid and start time (a recycled pid is refused)") {
  proc::ProcessId sandbox{4242, 777};
  CHECK(runsc::CheckControlPeer(4242, 777, sandbox).ok());
  CHECK_FALSE(runsc::CheckControlPeer(4243, 777, sandbox).ok());       // another process
  CHECK_FALSE(runsc::CheckControlPeer(4242, 999, sandbox).ok());       // same pid, started later
  CHECK_FALSE(runsc::CheckControlPeer(4242, std::nullopt, sandbox).ok());  // gone meanwhile
  CHECK(runsc::CheckControlPeer(4242, std::nullopt, {4242, 0}).ok());  // start not recorded: pid only
}
