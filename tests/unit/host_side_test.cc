// Issue #34's pure rules: which host paths a session may be handed (bind_sources.h), the
// capabilities a non-root direct exec keeps (exec_caps.h), cgroup names per state root.
#include <doctest/doctest.h>

#include "shim/linux/cgroups.h"
#include "shim/runtime/config.h"
#include "shim/gvisor/exec_caps.h"
#include "shim/session/workspace/bind_sources.h"

using sandshim::session::RefusedSource;
namespace json = boost::json;

TEST_CASE("host sources: / and system directories refused, links into them refused, the rest allowed") {
  CHECK(RefusedSource("/", "/").find("host's /") != std::string::npos);
  CHECK(RefusedSource("/tmp/slash", "/").find("host's /") != std::string::npos);
  CHECK(!RefusedSource("/etc", "/etc").empty());
  CHECK(!RefusedSource("/tmp", "/tmp").empty());
  CHECK(RefusedSource("/tmp/l", "/etc").find("/etc") != std::string::npos);
  CHECK(RefusedSource("/tmp/l", "/var/lib/docker").find("symlink") != std::string::npos);
  CHECK(RefusedSource("/tmp/l", "/proc/1/root").find("/proc") != std::string::npos);
  // Named directly: the operator's explicit choice.
  CHECK(RefusedSource("/etc/ssl/certs", "/etc/ssl/certs").empty());
  CHECK(RefusedSource("/var/lib/platform/ws/", "/var/lib/platform/ws").empty());
  // A link to an ordinary place.
  CHECK(RefusedSource("/tmp/l", "/srv/ws/a").empty());
  CHECK(RefusedSource("/tmp/l", "/etcetera").empty());
}

TEST_CASE("non-root direct exec: effective and permitted are the ambient set") {
  json::object caps{{"bounding", json::array{"CAP_KILL"}}, {"effective", json::array{"CAP_KILL"}},
                    {"permitted", json::array{"CAP_KILL"}}};
  auto p = sandshim::runtime::ExecveCaps(json::object{{"user", {{"uid", 1000}}}}, &caps);
  CHECK(p["capabilities"].at("effective").as_array().empty());
  CHECK(p["capabilities"].at("permitted").as_array().empty());
  CHECK(p["capabilities"].at("bounding").as_array().size() == 1);
  // An ambient capability counts only while permitted and inheritable (capabilities(7)).
  json::object with_ambient{{"user", {{"uid", 7}}},
                            {"capabilities", {{"ambient", json::array{"CAP_NET_BIND_SERVICE"}},
                                              {"inheritable", json::array{"CAP_NET_BIND_SERVICE"}},
                                              {"permitted", json::array{"CAP_NET_BIND_SERVICE", "CAP_KILL"}},
                                              {"effective", json::array{"CAP_KILL"}}}}};
  auto q = sandshim::runtime::ExecveCaps(with_ambient, nullptr);
  CHECK(json::serialize(q["capabilities"].at("effective")) == "[\"CAP_NET_BIND_SERVICE\"]");
  // runc spec's default: three ambient, none inheritable: a uid 1000 process keeps none.
  json::object runc_default{{"user", {{"uid", 1000}}},
                            {"capabilities", {{"ambient", json::array{"CAP_KILL"}}, {"permitted", json::array{"CAP_KILL"}},
                                              {"effective", json::array{"CAP_KILL"}}}}};
  auto d = sandshim::runtime::ExecveCaps(runc_default, nullptr);
  CHECK(d["capabilities"].at("effective").as_array().empty());
  CHECK(d["capabilities"].at("ambient").as_array().empty());
  auto root = sandshim::runtime::ExecveCaps(json::object{{"user", {{"uid", 0}}}}, &caps);
  CHECK(!root.contains("capabilities"));
}

TEST_CASE("default cgroup names differ per state root, stable per root") {
  auto a = sandshim::native::DefaultCgroupName("/run/a", "sess-x");
  CHECK(a == sandshim::native::DefaultCgroupName("/run/a/", "sess-x"));
  CHECK(a != sandshim::native::DefaultCgroupName("/run/b", "sess-x"));
  CHECK(a.starts_with("sandshim-"));
  CHECK(a.ends_with("-sess-x"));
}

TEST_CASE("host config: values of the wrong type are refused") {
  CHECK(!sandshim::runtime::ParseConfig(R"({"audit_dir": 5})"));
  CHECK(!sandshim::runtime::ParseConfig(R"({"backend": ["x"]})"));
  CHECK(!sandshim::runtime::ParseConfig(R"({"runsc_flags": "--debug"})"));
  CHECK(!sandshim::runtime::ParseConfig(R"({"runsc_flags": [1]})"));
  CHECK(sandshim::runtime::ParseConfig(R"({"runsc_flags": ["--debug"], "audit_dir": "/x", "other": 5})"));
}

#include "shim/net/domain_rules.h"

TEST_CASE("egress: '*' does not cover loopback names; a rule naming one does") {
  auto star = sandshim::net::DomainRules::Make({"*"}, {});
  REQUIRE(star);
  CHECK_FALSE(star->Decide("localhost", 80).allowed);
  CHECK_FALSE(star->Decide("x.localhost", 80).allowed);
  CHECK(star->Decide("example.com", 80).allowed);
  auto named = sandshim::net::DomainRules::Make({"localhost"}, {});
  REQUIRE(named);
  CHECK(named->Decide("localhost", 80).allowed);
}
