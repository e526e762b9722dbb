#include <doctest/doctest.h>
#include <unistd.h>

#include "bundle/session_profile.h"
#include "bundle/session_spec.h"
#include "bundle/spec.h"
#include "bundle/validate.h"
#include "shim/session/workspace/bind_sources.h"

using namespace sandshim;
using namespace sandshim::bundle;

TEST_CASE("session spec: read-only base, workspace rw, tmpfs /tmp, clean env with proxy, limits") {
  SessionProfile p;
  p.rootfs = "/var/lib/rootfs/base";
  p.workspace = "/home/u/ws";
  p.env = {{"A", "1"}};
  p.proxy = "http://proxy:3128";
  p.memory_bytes = 512 << 20;
  p.pids = 64;
  p.cpus = 1.5;
  p.mounts = {{"/data", "/data", true}};
  p.writable_layer = false;
  auto doc = SessionSpec(p);
  REQUIRE(doc.ok());
  auto spec = ParseSpec(boost::json::serialize(*doc));
  REQUIRE(spec.ok());
  CHECK(ValidateSpec(*spec, "").ok());
  CHECK(spec->root_readonly);
  CHECK(spec->root_path == "/var/lib/rootfs/base");
  CHECK(spec->process->cwd == "/workspace");
  auto env = GetStrings(*GetObject(spec->doc, "process"), "env");
  auto has = [&](const std::string& kv) { return std::find(env.begin(), env.end(), kv) != env.end(); };
  CHECK(has("A=1"));
  CHECK(has("HTTPS_PROXY=http://proxy:3128"));
  CHECK(has("https_proxy=http://proxy:3128"));
  CHECK(has("NO_PROXY=localhost,127.0.0.1,::1"));
  CHECK(env.size() == 10);  // PATH, HOME, TERM, 4 proxies, 2 no_proxy, A: nothing else
  auto mounts = boost::json::serialize(*GetArray(spec->doc, "mounts"));
  CHECK(mounts.find(R"("destination":"/workspace","type":"bind","source":"/home/u/ws")") != std::string::npos);
  CHECK(mounts.find(R"("destination":"/data","type":"bind","source":"/data","options":["rbind","nosuid","nodev","ro"])") !=
        std::string::npos);
  CHECK(mounts.find("size=256m") != std::string::npos);
  auto res = boost::json::serialize((*doc)["linux"].as_object()["resources"]);
  CHECK(res.find(R"("pids":{"limit":64})") != std::string::npos);
  CHECK(res.find(R"("quota":150000)") != std::string::npos);
  CHECK(FindNamespace(*spec, "network") != nullptr);  // network none: a private, empty netns
  CHECK((*doc)["process"].as_object()["user"].as_object()["uid"].to_number<int>() == 1000);
}

TEST_CASE("session spec: host network drops the netns; bad input is refused") {
  SessionProfile p;
  p.rootfs = "/r";
  p.workspace = "/w";
  p.network = "host";
  auto spec = ParseSpec(boost::json::serialize(*SessionSpec(p)));
  CHECK(FindNamespace(*spec, "network") == nullptr);
  p.network = "bridge";
  CHECK_FALSE(SessionSpec(p).ok());
  p.network = "none";
  p.workspace = "relative";
  CHECK_FALSE(SessionSpec(p).ok());
}

TEST_CASE("session flags: env, mounts, sizes") {
  CHECK(ParseEnv("K=V=W")->second == "V=W");
  CHECK_FALSE(ParseEnv("1K=V").ok());
  CHECK_FALSE(ParseEnv("NOEQUALS").ok());
  CHECK_FALSE(ParseEnv("A-B=1").ok());
  CHECK(ParseMount("/a:/b:ro")->readonly);
  CHECK_FALSE(ParseMount("/a:/b")->readonly);
  CHECK_FALSE(ParseMount("a:/b").ok());
  CHECK_FALSE(ParseMount("/a:/b:rw").ok());
  CHECK(*ParseBytes("512m") == 512ll << 20);
  CHECK(*ParseBytes("2g") == 2ll << 30);
  CHECK(*ParseBytes("100") == 100);
  CHECK_FALSE(ParseBytes("5x").ok());
  CHECK_FALSE(ParseBytes("-1").ok());
}

TEST_CASE("session spec: a writable layer makes the root writable at the merged path, the base stays the source") {
  SessionProfile p;
  p.rootfs = "/base";
  p.workspace = "/w";
  auto spec = ParseSpec(boost::json::serialize(*SessionSpec(p)));  // gVisor: overlay inside the sandbox
  CHECK_FALSE(spec->root_readonly);
  CHECK(spec->root_path == "/base");
  p.root_path = "/run/sandshim/@sessions/x/rootfs";  // native: the overlayfs mount
  spec = ParseSpec(boost::json::serialize(*SessionSpec(p)));
  CHECK(spec->root_path == "/run/sandshim/@sessions/x/rootfs");
}

TEST_CASE("session profile file: keys overlay the defaults, typos and bad values are refused") {
  SessionProfile p;
  ProfileExtras x;
  auto doc = boost::json::parse(R"({"rootfs":"/r","memory":"1g","cpus":1.5,"pids":64,"user":"2000:3000",
      "env":{"LANG":"C.UTF-8"},"mounts":["/d:/d:ro"],"network":"host","writable_layer":false,"exec_timeout":"90s"})");
  REQUIRE(ApplyProfileJson(doc.as_object(), &p, &x).ok());
  CHECK(p.rootfs == "/r");
  CHECK(p.memory_bytes == 1ll << 30);
  CHECK(p.cpus == 1.5);
  CHECK(p.pids == 64);
  CHECK(p.uid == 2000);
  CHECK(p.gid == 3000);
  CHECK(p.env.at("LANG") == "C.UTF-8");
  CHECK(p.mounts.size() == 1);
  CHECK(p.network == "host");
  CHECK_FALSE(p.writable_layer);
  CHECK(x.exec_timeout == std::chrono::seconds(90));
  SessionProfile q;
  auto typo = ApplyProfileJson(boost::json::parse(R"({"memroy":"1g"})").as_object(), &q, &x);
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().msg.find("memroy") != std::string::npos);
  CHECK_FALSE(ApplyProfileJson(boost::json::parse(R"({"network":"bridge"})").as_object(), &q, &x).ok());
  CHECK_FALSE(ApplyProfileJson(boost::json::parse(R"({"env":{"1A":"x"}})").as_object(), &q, &x).ok());
  CHECK_FALSE(ApplyProfileJson(boost::json::parse(R"({"pids":"many"})").as_object(), &q, &x).ok());
}

TEST_CASE("profile summary keeps environment keys, never values") {
  SessionProfile p;
  p.env = {{"API_TOKEN", "s3cr3t"}};
  auto text = boost::json::serialize(ProfileSummary(p));
  CHECK(text.find("API_TOKEN") != std::string::npos);
  CHECK(text.find("s3cr3t") == std::string::npos);
}

TEST_CASE("durations") {
  CHECK(*ParseDuration("250ms") == std::chrono::milliseconds(250));
  CHECK(*ParseDuration("30") == std::chrono::seconds(30));
  CHECK(*ParseDuration("1.5s") == std::chrono::milliseconds(1500));
  CHECK(*ParseDuration("10m") == std::chrono::minutes(10));
  CHECK(*ParseDuration("2h") == std::chrono::hours(2));
  CHECK(*ParseDuration("1d") == std::chrono::hours(24));
  CHECK_FALSE(ParseDuration("5y").ok());
  CHECK_FALSE(ParseDuration("soon").ok());
}

TEST_CASE("session spec: on gVisor the memory limit is also per process inside, with host headroom") {
  SessionProfile p;
  p.rootfs = "/r";
  p.workspace = "/w";
  p.memory_bytes = 128ll << 20;
  p.limit_memory_inside = true;
  auto doc = *SessionSpec(p);
  auto text = boost::json::serialize(doc["process"].as_object()["rlimits"]);
  CHECK(text.find(R"({"type":"RLIMIT_AS","hard":134217728,"soft":134217728})") != std::string::npos);
  CHECK(doc["linux"].as_object()["resources"].as_object()["memory"].as_object()["limit"].to_number<int64_t>() ==
        (128ll << 20) + (64ll << 20));
  CHECK(HostMemoryWithHeadroom(1ll << 30) == (1ll << 30) + (256ll << 20));
  p.limit_memory_inside = false;  // native: the cgroup alone (its OOM killer picks the hog)
  doc = *SessionSpec(p);
  CHECK(boost::json::serialize(doc["process"]).find("RLIMIT_AS") == std::string::npos);
  CHECK(doc["linux"].as_object()["resources"].as_object()["memory"].as_object()["limit"].to_number<int64_t>() == 128ll << 20);
}

TEST_CASE("session spec: without limits asked for, a pids limit and a host memory backstop (M7)") {
  SessionProfile p;
  p.rootfs = "/r";
  p.workspace = "/w";
  for (bool gvisor : {true, false}) {
    p.limit_memory_inside = gvisor;
    auto doc = *SessionSpec(p);
    const auto& res = doc["linux"].as_object()["resources"].as_object();
    CHECK(res.at("pids").as_object().at("limit").to_number<int64_t>() == kDefaultSessionPids);
    CHECK(res.at("memory").as_object().at("limit").to_number<int64_t>() == kDefaultSessionMemoryBackstop);
    // Never RLIMIT_AS by default: V8 and Go reserve more address space than they use.
    CHECK(boost::json::serialize(doc["process"]).find("RLIMIT_AS") == std::string::npos);
  }
  p.pids = 64;
  CHECK(SessionSpec(p)->at("linux").as_object().at("resources").as_object().at("pids").as_object().at("limit") == 64);
}

TEST_CASE("session bind sources: pinned at create, a swap for a symlink or another dir is refused") {
  auto base = std::filesystem::temp_directory_path() / ("sshim-pin-" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base / "shared/sub");
  std::filesystem::create_directories(base / "elsewhere");
  auto pin = sandshim::session::PinSource((base / "shared/./sub").string());
  REQUIRE(pin.ok());
  CHECK(std::string(pin->at("path").get_string()) == (base / "shared/sub").string());
  boost::json::array pins;
  pins.push_back(*pin);
  CHECK(sandshim::session::VerifyPinned(pins).ok());
  std::filesystem::remove(base / "shared/sub");
  std::filesystem::create_directory_symlink(base / "elsewhere", base / "shared/sub");
  CHECK_FALSE(sandshim::session::VerifyPinned(pins).ok());  // a symlink on the way
  std::filesystem::remove(base / "shared/sub");
  std::filesystem::rename(base / "elsewhere", base / "shared/sub");
  CHECK_FALSE(sandshim::session::VerifyPinned(pins).ok());  // another directory moved to the path
  std::filesystem::remove_all(base);
}
