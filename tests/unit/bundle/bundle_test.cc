#include <doctest/doctest.h>

#include "bundle/default_spec.h"
#include "bundle/process.h"
#include "bundle/spec.h"
#include "bundle/validate.h"
#include "shim/core/fs.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::bundle;

static std::string SpecText(const std::string& extra_linux = "") {
  return R"({"ociVersion":"1.0.2","root":{"path":"rootfs","readonly":true},
    "process":{"args":["sh","-c","x"],"cwd":"/","terminal":true,"env":["A=1","PATH=/bin"],
      "capabilities":{"bounding":["CAP_KILL","CAP_NET_RAW"]}},
    "annotations":{"k":"v"},"x-unknown":{"kept":1},
    "linux":{"cgroupsPath":"/docker/abc","namespaces":[{"type":"pid"},{"type":"network","path":"/var/run/netns/n1"}]})" +
         extra_linux + "}";
}

TEST_CASE("spec: typed views of what sandshim reads, unknown fields kept") {
  auto s = ParseSpec(SpecText());
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().msg));
  CHECK(s->oci_version == "1.0.2");
  CHECK(s->root_path == "rootfs");
  CHECK(s->root_readonly);
  CHECK(s->process->terminal);
  CHECK(s->process->args.size() == 3);
  CHECK(s->cgroups_path == "/docker/abc");
  CHECK(s->annotations.at("k") == "v");
  CHECK(s->process->capabilities->bounding.size() == 2);
  REQUIRE(FindNamespace(*s, "network") != nullptr);
  CHECK(FindNamespace(*s, "network")->path == "/var/run/netns/n1");
  CHECK(FindNamespace(*s, "user") == nullptr);
  CHECK(Serialize(*s).find("x-unknown") != std::string::npos);
  CHECK(RootfsPath(*s, "/b") == "/b/rootfs");
}

TEST_CASE("spec: malformed JSON is one clear error") {
  auto s = ParseSpec("{not json");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg.find("config.json: invalid JSON") == 0);
  CHECK_FALSE(ParseSpec("[1,2]").ok());
}

TEST_CASE("validate: each bad field named") {
  auto check = [](const std::string& text, const std::string& field) {
    auto s = ParseSpec(text);
    REQUIRE(s.ok());
    auto v = ValidateSpec(*s, "");
    REQUIRE_FALSE(v.ok());
    CHECK_MESSAGE(v.error().msg.find(field) != std::string::npos, v.error().msg);
  };
  check(R"({"root":{"path":"r"},"process":{"args":["a"],"cwd":"/"}})", "ociVersion");
  check(R"({"ociVersion":"1","process":{"args":["a"],"cwd":"/"}})", "root.path");
  check(R"({"ociVersion":"1","root":{"path":"r"}})", "process");
  check(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":[],"cwd":"/"}})", "process.args");
  check(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":["a"],"cwd":"rel"}})", "process.cwd");
  check(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":["a"],"cwd":"/"},
           "linux":{"namespaces":[{"type":"pid"},{"type":"pid"}]}})", "duplicate");
  check(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":["a"],"cwd":"/"},
           "linux":{"namespaces":[{"type":"bogus"}]}})", "unknown type");
  check(R"({"ociVersion":"1","root":{"path":"r"},"process":{"args":["a"],"cwd":"/"},
           "mounts":[{"destination":"relative"}]})", "mounts");
  auto ok = ParseSpec(SpecText());
  CHECK(ValidateSpec(*ok, "").ok());
  testing::TempDir d;
  auto missing = ValidateSpec(*ok, d.path());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().msg.find("no such file or directory") != std::string::npos);
}

TEST_CASE("process: exec args build on the container's process like runc") {
  auto s = ParseSpec(SpecText());
  ExecOverrides o;
  o.args = {"ls", "-l"};
  o.env = {"A=2", "B=3"};
  o.cwd = "/tmp";
  o.user = "1000:1001";
  o.tty = false;
  auto p = ProcessFromOverrides(*s, o);
  REQUIRE(p.ok());
  CHECK(GetStrings(*p, "args") == std::vector<std::string>{"ls", "-l"});
  CHECK(GetStrings(*p, "env") == std::vector<std::string>{"A=2", "PATH=/bin", "B=3"});
  CHECK(GetString(*p, "cwd") == "/tmp");
  CHECK_FALSE(GetBool(*p, "terminal", true));
  CHECK((*p)["user"].as_object()["uid"].to_number<int64_t>() == 1000);
  CHECK((*p)["user"].as_object()["gid"].to_number<int64_t>() == 1001);
  CHECK(GetObject(*p, "capabilities") != nullptr);  // inherited from the container
  o.user = "root";
  CHECK_FALSE(ProcessFromOverrides(*s, o).ok());
  o.user = "";
  o.args.clear();
  CHECK_FALSE(ProcessFromOverrides(*s, o).ok());
}

TEST_CASE("process: --process file must name a command") {
  testing::TempDir d;
  REQUIRE(fs::WriteFileAtomic(d.path() / "p.json", R"({"args":[],"cwd":"/"})").ok());
  CHECK_FALSE(LoadProcess(d.path() / "p.json").ok());
  REQUIRE(fs::WriteFileAtomic(d.path() / "q.json", R"({"args":["true"],"cwd":"/"})").ok());
  CHECK(LoadProcess(d.path() / "q.json").ok());
  CHECK_FALSE(LoadProcess(d.path() / "none.json").ok());
}

TEST_CASE("default spec validates and matches runc's shape") {
  Spec s = *ParseSpec(boost::json::serialize(DefaultSpec({"true"}, false)));
  CHECK(ValidateSpec(s, "").ok());
  CHECK(s.root_readonly);
  CHECK(FindNamespace(s, "network") != nullptr);
  CHECK(FindNamespace(s, "network")->path.empty());
}

// Issue #16 item 4: the resources and hooks readers are as strict as json_field's.
TEST_CASE("spec: a mistyped resources limit or hook is one error naming the field") {
  auto with = [](const char* extra) {
    return std::string(R"({"ociVersion":"1.0.2","root":{"path":"rootfs"},"process":{"args":["sh"],"cwd":"/"},)") + extra + "}";
  };
  // Positive control: the same documents with the right types parse.
  REQUIRE(ParseSpec(with(R"("linux":{"resources":{"memory":{"limit":1073741824}}})")).ok());
  REQUIRE(ParseSpec(with(R"("hooks":{"poststart":[{"path":"/bin/true","args":["true"],"timeout":5}]})")).ok());
  auto mem = ParseSpec(with(R"("linux":{"resources":{"memory":{"limit":"1g"}}})"));
  REQUIRE_FALSE(mem.ok());
  CHECK(mem.error().msg == "config.json: linux.resources.memory.limit: not a number");
  auto timeout = ParseSpec(with(R"("hooks":{"poststart":[{"path":"/bin/true","timeout":"5"}]})"));
  REQUIRE_FALSE(timeout.ok());
  CHECK(timeout.error().msg == "config.json: hooks.poststart[0].timeout: not a number");
  auto args = ParseSpec(with(R"("hooks":{"prestart":[{"path":"/bin/true","args":"true"}]})"));
  REQUIRE_FALSE(args.ok());
  CHECK(args.error().msg == "config.json: hooks.prestart[0].args: not an array");
  auto nopath = ParseSpec(with(R"("hooks":{"poststop":[{"args":["x"]}]})"));
  REQUIRE_FALSE(nopath.ok());
  CHECK(nopath.error().msg == "config.json: hooks.poststop[0].path: missing");
  CHECK(ParseSpec(with(R"("hooks":{"poststop":[7]})")).error().msg == "config.json: hooks.poststop[0]: not an object");
  // update --resources goes through the same reader.
  auto upd = ResourcesFromJson(boost::json::parse(R"({"memory":{"limit":"1g"}})").as_object(), "update --resources");
  REQUIRE_FALSE(upd.ok());
  CHECK(upd.error().msg == "update --resources: memory.limit: not a number");
  auto ok = ResourcesFromJson(boost::json::parse(R"({"pids":{"limit":64}})").as_object(), "update --resources");
  REQUIRE(ok.ok());
  CHECK(ok->pids_limit == 64);
}
