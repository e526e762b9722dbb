// The proxy network mode of sessions, by pure code: the spec joins the session's namespace
// and points the proxy variables at the relay, the user's proxy (and its credentials) stays
// outside, and bad egress rules fail before anything exists.
#include <doctest/doctest.h>

#include <algorithm>

#include "bundle/session_profile.h"
#include "bundle/session_spec.h"
#include "bundle/spec.h"
#include "shim/session/egress/network.h"

using namespace sandshim;
using namespace sandshim::bundle;

namespace {

SessionProfile ProxyProfile() {
  SessionProfile p;
  p.rootfs = "/r";
  p.workspace = "/w";
  p.network = "proxy";
  p.netns_path = "/run/sandshim/@sessions/s1/netns";
  return p;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("session spec, proxy mode: joins the session's namespace; the variables name the relay, never the upstream") {
  auto p = ProxyProfile();
  p.proxy = "http://user:secret@corp.example:3128";
  auto doc = SessionSpec(p);
  REQUIRE(doc.ok());
  auto spec = ParseSpec(boost::json::serialize(*doc));
  REQUIRE(spec.ok());
  const auto* ns = FindNamespace(*spec, "network");
  REQUIRE(ns != nullptr);
  CHECK(ns->path == p.netns_path);
  CHECK(spec->annotations.at(kNetworkStackAnnotation) == "netstack");  // runsc/flags: netstack takes it over
  auto env = GetStrings(*GetObject(spec->doc, "process"), "env");
  // The relay's end of the session's veth link, not loopback: netstack's loopback is the sandbox's own.
  CHECK(Contains(env, "HTTP_PROXY=http://10.200.0.1:3128"));
  CHECK(Contains(env, "https_proxy=http://10.200.0.1:3128"));
  CHECK(Contains(env, "NO_PROXY=localhost,127.0.0.1,::1"));
  CHECK(boost::json::serialize(*doc).find("user:secret") == std::string::npos);
  CHECK(boost::json::serialize(*doc).find("corp.example") == std::string::npos);

  p.netns_path.clear();  // the session layer must have named the namespace
  CHECK_FALSE(SessionSpec(p).ok());
}

TEST_CASE("session network stack: netstack or hostinet, and hostinet only in proxy mode") {
  auto p = ProxyProfile();
  CHECK(p.network_stack == "netstack");  // the default
  p.network_stack = "hostinet";
  CHECK(SessionSpec(p).ok());
  p.network_stack = "bogus";
  auto bad = SessionSpec(p);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("netstack or hostinet") != std::string::npos);
  p = ProxyProfile();
  CHECK(session::CheckEgressRules(p).ok());
  p.network = "none";
  p.network_stack = "hostinet";  // checked before anything is created
  auto refused = session::CheckEgressRules(p);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().msg.find("needs --network proxy") != std::string::npos);
  p.network_stack = "netstack";
  CHECK(session::CheckEgressRules(p).ok());
}

TEST_CASE("proxy URLs lose their credentials in records") {
  CHECK(RedactUrl("http://user:secret@corp:3128") == "http://corp:3128");
  CHECK(RedactUrl("http://corp:3128/a@b") == "http://corp:3128/a@b");  // an @ after the host is a path
  CHECK(RedactUrl("corp:3128") == "corp:3128");
}

TEST_CASE("L9: proxy credentials refused outside the proxy network mode") {
  CHECK_FALSE(CheckProxyCredentials("http://user:secret@corp:3128", "none").ok());
  CHECK_FALSE(CheckProxyCredentials("http://user:secret@corp:3128", "host").ok());
  CHECK_FALSE(CheckProxyCredentials("user@corp:3128", "host").ok());
  CHECK(CheckProxyCredentials("http://user:secret@corp:3128", "proxy").ok());  // the relay keeps them
  CHECK(CheckProxyCredentials("http://corp:3128", "host").ok());
  CHECK(CheckProxyCredentials("http://corp:3128/a@b", "none").ok());  // an @ in the path is no userinfo
  CHECK(CheckProxyCredentials("", "none").ok());
  SessionProfile p = ProxyProfile();
  p.proxy = "http://u:pw@corp:3128";
  CHECK(boost::json::serialize(ProfileSummary(p)).find("pw") == std::string::npos);
  p.proxy.clear();
  p.egress_policy_json = R"({"network": {"upstreamProxy": "http://u:pw2@corp:3128", "allowedDomains": ["a.com"]}})";
  auto summary = boost::json::serialize(ProfileSummary(p));
  CHECK(summary.find("pw2") == std::string::npos);
  CHECK(summary.find("http://corp:3128") != std::string::npos);
  CHECK(summary.find("a.com") != std::string::npos);
}

TEST_CASE("profile file: egress keys; network mode checked") {
  SessionProfile p;
  ProfileExtras x;
  auto doc = boost::json::parse(R"({"network": "proxy", "allow_domains": ["pypi.org", "*.pythonhosted.org"],
      "deny_domains": ["evil.com"], "allow_cidrs": ["203.0.113.0/24"], "allow_private": true,
      "network_policy": {"allowedRegistries": ["npm"]}})").as_object();
  REQUIRE(ApplyProfileJson(doc, &p, &x).ok());
  CHECK(p.network == "proxy");
  CHECK(p.allow_domains == std::vector<std::string>{"pypi.org", "*.pythonhosted.org"});
  CHECK(p.deny_domains == std::vector<std::string>{"evil.com"});
  CHECK(p.allow_private);
  CHECK(p.egress_policy_json == R"({"allowedRegistries":["npm"]})");
  SessionProfile q;
  CHECK_FALSE(ApplyProfileJson(boost::json::parse(R"({"network": "bridge"})").as_object(), &q, &x).ok());
  CHECK_FALSE(ApplyProfileJson(boost::json::parse(R"({"allow_domains": "pypi.org"})").as_object(), &q, &x).ok());
  CHECK_FALSE(ApplyProfileJson(boost::json::parse(R"({"network_policy": ["x"]})").as_object(), &q, &x).ok());
}

TEST_CASE("egress rules are checked before a session exists") {
  auto p = ProxyProfile();
  p.allow_domains = {"pypi.org"};
  CHECK(session::CheckEgressRules(p).ok());
  p.allow_domains = {"exa mple.com"};
  CHECK_FALSE(session::CheckEgressRules(p).ok());
  p.allow_domains = {};
  p.allow_cidrs = {"10.0.0.0/99"};
  CHECK_FALSE(session::CheckEgressRules(p).ok());
  p.allow_cidrs = {};
  p.egress_policy_json = R"({"network": {"allowedDomains": "pypi.org"}})";  // a string, not a list
  CHECK_FALSE(session::CheckEgressRules(p).ok());
  p.egress_policy_json = R"({"network": {"allowedRegistries": ["cpan"]}})";  // unknown registry
  CHECK_FALSE(session::CheckEgressRules(p).ok());
  // Rules without the proxy mode would silently do nothing: refused.
  SessionProfile none;
  none.network = "none";
  none.allow_domains = {"pypi.org"};
  auto s = session::CheckEgressRules(none);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg.find("--network proxy") != std::string::npos);
}

TEST_CASE("relay: the upstream goes into the 0600 policy file, never into argv") {
  auto p = ProxyProfile();
  p.allow_domains = {"pypi.org"};
  p.proxy = "http://u:pw@corp:3128";
  p.egress_policy_json = R"({"network": {"allowedRegistries": ["npm"]}})";
  session::NetworkPaths paths("/run/sandshim/@sessions/s1");
  auto relay = session::CheckEgressRules(p);
  REQUIRE(relay.ok());
  REQUIRE(relay->has_value());
  CHECK((*relay)->upstream_proxy == "http://u:pw@corp:3128");
  // The file the relay reads is the typed policy written out: it reads back the same.
  auto policy = boost::json::parse(net::PolicyJson(**relay)).as_object();
  CHECK(policy["network"].as_object()["upstreamProxy"] == "http://u:pw@corp:3128");
  CHECK(policy["network"].as_object()["allowedRegistries"].as_array().size() == 1);
  auto back = net::ParsePolicy(net::PolicyJson(**relay));
  REQUIRE(back.ok());
  CHECK(back->allowed_registries == std::vector<std::string>{"npm"});
  CHECK(back->upstream_proxy == "http://u:pw@corp:3128");
  auto args = session::RelayProxyArgs(p, *relay, paths, "s1", "/var/log/s1.jsonl", {});
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  CHECK(joined.find("pw") == std::string::npos);
  CHECK(joined.find("--policy /run/sandshim/@sessions/s1/egress-policy.json") != std::string::npos);
  CHECK(joined.find("--allow-domain pypi.org") != std::string::npos);
  CHECK(joined.find("--session s1") != std::string::npos);
  CHECK(joined.find("--audit /var/log/s1.jsonl") != std::string::npos);
  // A top-level policy (no "network" wrapper) reads the same, and gets the upstream.
  p.egress_policy_json = R"({"allowedDomains": ["a.com"]})";
  auto top = session::CheckEgressRules(p);
  REQUIRE(top.ok());
  CHECK((*top)->allowed_domains == std::vector<std::string>{"a.com"});
  CHECK((*top)->upstream_proxy == "http://u:pw@corp:3128");
  // Nothing to write: no policy, no upstream.
  p.egress_policy_json.clear();
  p.proxy.clear();
  auto none = session::CheckEgressRules(p);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  auto bare = session::RelayProxyArgs(p, *none, paths, "s1", "/a", {});
  CHECK(std::find(bare.begin(), bare.end(), "--policy") == bare.end());
}
