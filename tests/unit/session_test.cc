#include <doctest/doctest.h>

#include "bundle/session_spec.h"
#include "bundle/spec.h"
#include "bundle/validate.h"

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
  auto doc = SessionSpec(p);
  REQUIRE(doc.ok());
  auto spec = ParseSpec(boost::json::serialize(*doc));
  REQUIRE(spec.ok());
  CHECK(ValidateSpec(*spec, "").ok());
  CHECK(spec->root_readonly);
  CHECK(spec->root_path == "/var/lib/rootfs/base");
  CHECK(spec->cwd == "/workspace");
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
