#include <doctest/doctest.h>

#include <algorithm>

#include <boost/json.hpp>

#include "shim/net/address_policy.h"
#include "shim/net/audit.h"
#include "shim/net/domain_rules.h"
#include "shim/net/http_request.h"
#include "shim/net/policy_file.h"
#include "shim/net/egress.h"
#include "shim/net/proxy_process.h"
#include "shim/net/proxy_server.h"
#include "shim/net/relay.h"
#include "shim/net/resolver.h"

using namespace sandshim;
using namespace sandshim::net;

static DomainRules Rules(std::vector<std::string> allow, std::vector<std::string> deny = {}) {
  auto r = DomainRules::Make(allow, deny);
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("net: domain rules, exact, wildcard, dot-prefix") {
  auto r = Rules({"example.com", "*.pypi.org", ".npmjs.org"});
  CHECK(r.Decide("example.com", 443).allowed);
  CHECK(r.Decide("example.com", 80).allowed);
  CHECK_FALSE(r.Decide("www.example.com", 443).allowed);  // exact means exact
  CHECK_FALSE(r.Decide("pypi.org", 443).allowed);         // *.x excludes the apex
  CHECK(r.Decide("files.pypi.org", 443).allowed);
  CHECK(r.Decide("a.b.pypi.org", 443).allowed);
  CHECK_FALSE(r.Decide("evilpypi.org", 443).allowed);     // a label boundary, not a suffix
  CHECK(r.Decide("npmjs.org", 443).allowed);              // .x includes the apex
  CHECK(r.Decide("registry.npmjs.org", 443).allowed);
  auto d = r.Decide("other.net", 443);
  CHECK_FALSE(d.allowed);
  CHECK(d.rule == "default-deny");
  CHECK(d.reason.find("other.net:443") != std::string::npos);
}

TEST_CASE("net: domain rules, case and trailing dot normalised") {
  auto r = Rules({"Example.COM."});
  CHECK(r.Decide("EXAMPLE.com", 80).allowed);
  CHECK(r.Decide("example.com.", 80).allowed);
  CHECK(r.Decide("example.com", 80).rule == "Example.COM.");
}

TEST_CASE("net: domain rules, ports") {
  auto r = Rules({"api.example.com:443", "*.pypi.org:443", "[2001:db8::1]:8443", "203.0.113.7"});
  CHECK(r.Decide("api.example.com", 443).allowed);
  CHECK_FALSE(r.Decide("api.example.com", 80).allowed);
  CHECK(r.Decide("x.pypi.org", 443).allowed);
  CHECK_FALSE(r.Decide("x.pypi.org", 8080).allowed);
  CHECK(r.Decide("2001:db8::1", 8443).allowed);
  CHECK(r.Decide("[2001:DB8::1]", 8443).allowed);
  CHECK_FALSE(r.Decide("2001:db8::1", 443).allowed);
  CHECK(r.Decide("203.0.113.7", 9999).allowed);
}

TEST_CASE("net: deny wins, and names the rule") {
  auto r = Rules({"*", ".example.com"}, {"*.evil.com", "bad.example.com:80"});
  auto d = r.Decide("x.evil.com", 443);
  CHECK_FALSE(d.allowed);
  CHECK(d.rule == "*.evil.com");
  CHECK(d.reason == "denied by rule '*.evil.com'");
  CHECK_FALSE(r.Decide("bad.example.com", 80).allowed);
  CHECK(r.Decide("bad.example.com", 443).allowed);
  CHECK(r.Decide("evil.com", 443).allowed);  // *.evil.com leaves the apex alone
}

TEST_CASE("net: raw IPs need a rule that names them; '*' does not") {
  auto r = Rules({"*"});
  auto d = r.Decide("93.184.216.34", 80);
  CHECK_FALSE(d.allowed);
  CHECK(d.rule == "raw-ip");
  CHECK_FALSE(r.Decide("::1", 80).allowed);
  CHECK(Rules({"93.184.216.34"}).Decide("93.184.216.34", 80).allowed);
}

TEST_CASE("net: bad domain rules are refused") {
  for (const char* bad : {"", "a*.example.com", "exa*mple.com", "host:0", "host:70000", "host:", "*.1.2.3.4",
                          "[::1", "a b.com", "x.com:44a"})
    CHECK_MESSAGE(!ParseDomainRule(bad).ok(), bad);
}

static AddrClass C(const char* a) { return Classify(*ParseAddress(a)); }

TEST_CASE("net: address classes, IPv4") {
  CHECK(C("127.0.0.1") == AddrClass::kLoopback);
  CHECK(C("127.255.0.9") == AddrClass::kLoopback);
  CHECK(C("169.254.169.254") == AddrClass::kMetadata);
  CHECK(C("169.254.0.1") == AddrClass::kLinkLocal);
  CHECK(C("10.0.0.5") == AddrClass::kPrivate);
  CHECK(C("172.16.0.1") == AddrClass::kPrivate);
  CHECK(C("172.31.255.255") == AddrClass::kPrivate);
  CHECK(C("172.32.0.1") == AddrClass::kPublic);
  CHECK(C("192.168.1.1") == AddrClass::kPrivate);
  CHECK(C("100.64.0.1") == AddrClass::kSharedCgnat);
  CHECK(C("100.127.255.255") == AddrClass::kSharedCgnat);
  CHECK(C("100.128.0.1") == AddrClass::kPublic);
  CHECK(C("0.0.0.0") == AddrClass::kUnspecified);
  CHECK(C("0.1.2.3") == AddrClass::kThisNetwork);
  CHECK(C("224.0.0.1") == AddrClass::kMulticast);
  CHECK(C("255.255.255.255") == AddrClass::kBroadcast);
  CHECK(C("240.0.0.1") == AddrClass::kReserved);
  CHECK(C("198.18.0.1") == AddrClass::kBenchmarking);
  CHECK(C("192.0.0.8") == AddrClass::kProtocolAssignments);
  CHECK(C("192.0.2.1") == AddrClass::kDocumentation);
  CHECK(C("198.51.100.1") == AddrClass::kDocumentation);
  CHECK(C("203.0.113.10") == AddrClass::kDocumentation);
  CHECK(C("8.8.8.8") == AddrClass::kPublic);
  CHECK(C("151.101.0.223") == AddrClass::kPublic);
}

TEST_CASE("net: address classes, IPv6 and IPv4 wrapped in IPv6") {
  CHECK(C("::1") == AddrClass::kLoopback);
  CHECK(C("::") == AddrClass::kUnspecified);
  CHECK(C("fe80::1") == AddrClass::kLinkLocal);
  CHECK(C("febf::1") == AddrClass::kLinkLocal);
  CHECK(C("fc00::1") == AddrClass::kUniqueLocal);
  CHECK(C("fd12:3456::1") == AddrClass::kUniqueLocal);
  CHECK(C("ff02::1") == AddrClass::kMulticast);
  CHECK(C("2001:db8::1") == AddrClass::kDocumentation);
  CHECK(C("2606:4700::1111") == AddrClass::kPublic);
  CHECK(C("::ffff:127.0.0.1") == AddrClass::kLoopback);
  CHECK(C("::ffff:169.254.169.254") == AddrClass::kMetadata);
  CHECK(C("::ffff:10.1.2.3") == AddrClass::kPrivate);
  CHECK(C("::ffff:8.8.8.8") == AddrClass::kPublic);
  CHECK(C("::10.1.2.3") == AddrClass::kPrivate);         // IPv4-compatible
  CHECK(C("64:ff9b::7f00:1") == AddrClass::kLoopback);    // NAT64 of 127.0.0.1
  CHECK(C("64:ff9b::a9fe:a9fe") == AddrClass::kMetadata);  // NAT64 of the metadata address
}

TEST_CASE("net: address policy defaults, --allow-private, --allow-cidr") {
  AddressPolicy p;
  auto d = p.Check(*ParseAddress("10.0.0.5"));
  CHECK_FALSE(d.allowed);
  CHECK(d.reason == "10.0.0.5 is a private address");
  CHECK(d.rule == "private");
  CHECK_FALSE(p.Check(*ParseAddress("169.254.169.254")).allowed);
  CHECK_FALSE(p.Check(*ParseAddress("::ffff:127.0.0.1")).allowed);
  CHECK(p.Check(*ParseAddress("8.8.8.8")).allowed);
  CHECK(p.Check(*ParseAddress("203.0.113.10")).allowed);
  p.allow_private = true;
  CHECK(p.Check(*ParseAddress("10.0.0.5")).allowed);
  CHECK(p.Check(*ParseAddress("100.64.1.1")).allowed);
  CHECK(p.Check(*ParseAddress("fd00::1")).allowed);
  CHECK_FALSE(p.Check(*ParseAddress("169.254.169.254")).allowed);  // metadata needs an explicit CIDR
  CHECK_FALSE(p.Check(*ParseAddress("127.0.0.1")).allowed);
  p.allow.push_back(*ParseCidr("127.0.0.0/8"));
  auto l = p.Check(*ParseAddress("::ffff:127.0.0.2"));
  CHECK(l.allowed);
  CHECK(l.rule == "127.0.0.0/8");
}

TEST_CASE("net: CIDR parsing and containment") {
  CHECK(ParseCidr("10.0.0.0/8")->Contains(*ParseAddress("10.255.1.1")));
  CHECK_FALSE(ParseCidr("10.0.0.0/8")->Contains(*ParseAddress("11.0.0.1")));
  CHECK(ParseCidr("fd00::/8")->Contains(*ParseAddress("fd12::1")));
  CHECK_FALSE(ParseCidr("fd00::/8")->Contains(*ParseAddress("fe00::1")));
  CHECK(ParseCidr("1.2.3.4")->Contains(*ParseAddress("1.2.3.4")));
  CHECK_FALSE(ParseCidr("1.2.3.4")->Contains(*ParseAddress("1.2.3.5")));
  CHECK(ParseCidr("0.0.0.0/0")->Contains(*ParseAddress("9.9.9.9")));
  CHECK_FALSE(ParseCidr("10.0.0.0/33").ok());
  CHECK_FALSE(ParseCidr("10.0.0.0/").ok());
  CHECK_FALSE(ParseCidr("nonsense/8").ok());
}

TEST_CASE("net: policy file, platform shape") {
  auto p = ParsePolicy(R"({"network": {"allowedDomains": ["pypi.org", "*.pythonhosted.org"],
      "blockedDomains": ["evil.com"], "deniedDomains": ["worse.com"], "allowedRegistries": ["npm", "crates"],
      "allowPrivate": true, "allowCidrs": ["10.1.0.0/16"], "upstreamProxy": "http://corp:3128",
      "somePlatformKey": 7}, "filesystem": {}})");
  REQUIRE(p.ok());
  CHECK(p->allowed_domains == std::vector<std::string>{"pypi.org", "*.pythonhosted.org"});
  CHECK(p->blocked_domains == std::vector<std::string>{"evil.com", "worse.com"});
  CHECK(p->allow_private);
  CHECK(p->upstream_proxy == "http://corp:3128");
  CHECK(p->allow_cidrs == std::vector<std::string>{"10.1.0.0/16"});
  auto all = p->EffectiveAllow();
  for (const char* h : {"pypi.org", "registry.npmjs.org", "crates.io", "static.crates.io", "index.crates.io"})
    CHECK_MESSAGE(std::find(all.begin(), all.end(), h) != all.end(), h);
}

TEST_CASE("net: policy file, top level, registries, errors") {
  auto p = ParsePolicy(R"({"allowedRegistries": ["pypi", "go", "maven", "rubygems"]})");
  REQUIRE(p.ok());
  auto all = p->EffectiveAllow();
  CHECK(all.size() == 7);
  CHECK(*RegistryDomains("pypi") == std::vector<std::string>{"pypi.org", "files.pythonhosted.org"});
  CHECK_FALSE(RegistryDomains("cpan").ok());
  CHECK_FALSE(ParsePolicy(R"({"network": {"allowedRegistries": ["cpan"]}})").ok());
  CHECK_FALSE(ParsePolicy(R"({"network": {"allowedDomains": "pypi.org"}})").ok());
  CHECK_FALSE(ParsePolicy(R"({"network": {"allowPrivate": "yes"}})").ok());
  CHECK_FALSE(ParsePolicy(R"({"network": []})").ok());
  CHECK_FALSE(ParsePolicy("not json").ok());
  CHECK(ParsePolicy("{}")->EffectiveAllow().empty());
}

TEST_CASE("net: CONNECT and absolute-form targets") {
  auto c = ParseConnectTarget("Example.COM:443");
  REQUIRE(c.ok());
  CHECK(c->host == "example.com");
  CHECK(c->port == 443);
  auto v6 = ParseConnectTarget("[2001:db8::1]:8443");
  REQUIRE(v6.ok());
  CHECK(v6->host == "2001:db8::1");
  CHECK(v6->port == 8443);
  CHECK_FALSE(ParseConnectTarget("example.com").ok());  // CONNECT needs a port
  CHECK_FALSE(ParseConnectTarget("example.com:0").ok());
  CHECK_FALSE(ParseConnectTarget("user:pw@example.com:443").ok());
  CHECK_FALSE(ParseConnectTarget("[::1:443").ok());
  CHECK_FALSE(ParseConnectTarget("exa mple.com:443").ok());
  auto a = ParseAbsoluteTarget("http://Example.com/a/b?q=1#frag");
  REQUIRE(a.ok());
  CHECK(a->host == "example.com");
  CHECK(a->port == 80);
  CHECK(a->origin_form == "/a/b?q=1");
  auto b = ParseAbsoluteTarget("HTTP://example.com:8080");
  REQUIRE(b.ok());
  CHECK(b->port == 8080);
  CHECK(b->origin_form == "/");
  CHECK(ParseAbsoluteTarget("http://x.com?q")->origin_form == "/?q");
  CHECK(ParseAbsoluteTarget("http://[::1]:81/")->host == "::1");
  CHECK_FALSE(ParseAbsoluteTarget("https://example.com/").ok());
  CHECK_FALSE(ParseAbsoluteTarget("/relative").ok());
  CHECK_FALSE(ParseAbsoluteTarget("http:///nohost").ok());
}

TEST_CASE("net: hop-by-hop headers and authorities") {
  for (const char* h : {"Connection", "keep-alive", "Proxy-Authorization", "proxy-connection", "TE", "Trailer", "Upgrade"})
    CHECK_MESSAGE(IsHopByHop(h), h);
  for (const char* h : {"Host", "Transfer-Encoding", "Content-Length", "Authorization", "Proxyish"})
    CHECK_MESSAGE(!IsHopByHop(h), h);
  CHECK(Authority("example.com", 443) == "example.com:443");
  CHECK(Authority("2001:db8::1", 443) == "[2001:db8::1]:443");
}

TEST_CASE("net: upstream proxy URLs") {
  auto u = ParseProxyUrl("http://corp.example:3128/");
  REQUIRE(u.ok());
  CHECK(u->host == "corp.example");
  CHECK(u->port == 3128);
  CHECK(u->authorization.empty());
  auto a = ParseProxyUrl("http://user:pass@10.0.0.1:8080");
  REQUIRE(a.ok());
  CHECK(a->authorization == "Basic dXNlcjpwYXNz");
  CHECK(ParseProxyUrl("http://proxy")->port == 80);
  CHECK_FALSE(ParseProxyUrl("https://proxy:443").ok());
  CHECK_FALSE(ParseProxyUrl("socks5://proxy:1080").ok());
}

TEST_CASE("net: static resolver sequences model DNS rebinding") {
  StaticResolver r(nullptr);
  REQUIRE(r.Add("rebind.test=203.0.113.10").ok());
  REQUIRE(r.Add("rebind.test=10.0.0.5").ok());
  REQUIRE(r.Add("multi.test=203.0.113.1,2001:db8::1").ok());
  CHECK_FALSE(r.Add("bad").ok());
  CHECK_FALSE(r.Add("x=notanip").ok());
  std::vector<std::string> seen;
  auto cb = [&](Result<Addresses> a) { seen.push_back(a ? a->front().to_string() : "error"); };
  r.Resolve("rebind.test", cb);
  r.Resolve("REBIND.test.", cb);
  r.Resolve("rebind.test", cb);
  r.Resolve("unknown.test", cb);
  CHECK(seen == std::vector<std::string>{"203.0.113.10", "10.0.0.5", "10.0.0.5", "error"});
  r.Resolve("multi.test", [](Result<Addresses> a) { CHECK(a->size() == 2); });
}

TEST_CASE("net: audit line") {
  AuditRecord r;
  r.session = "s1";
  r.method = "CONNECT";
  r.host = "pypi.org";
  r.port = 443;
  r.address = "151.101.0.223";
  r.decision = "allow";
  r.rule = "pypi.org";
  r.status = 200;
  r.bytes_up = 517;
  r.bytes_down = 4096;
  r.duration_ms = 12.3456;
  auto line = FormatAudit(r, "2026-01-01T00:00:00Z");
  CHECK(line.back() == '\n');
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  auto v = boost::json::parse(line).as_object();
  CHECK(v["session"] == "s1");
  CHECK(v["port"].to_number<int>() == 443);
  CHECK(v["bytes_up"].to_number<int>() == 517);
  CHECK(v["bytes_down"].to_number<int>() == 4096);
  CHECK(v["decision"] == "allow");
  CHECK(line.find("\"duration_ms\":12.346}") != std::string::npos);
}

TEST_CASE("net: relay argv and pid file") {
  RelayOptions o;
  o.exe = "/x/sandshim";
  o.netns = "/run/s/netns";
  o.port = 3128;
  o.pid_file = "/run/s/relay.pid";
  o.proxy_args = {"--allow-domain", "pypi.org"};
  auto argv = RelayArgv(o, 3);
  CHECK(argv == std::vector<std::string>{"sandshim", "proxy", "--netns", "/run/s/netns", "--listen", "127.0.0.1:3128",
                                         "--pid-file", "/run/s/relay.pid", "--ready-fd", "3", "--allow-domain",
                                         "pypi.org"});
  auto h = ParsePidFile(FormatPidFile({1234, 98765}, "127.0.0.1:3128"));
  REQUIRE(h.ok());
  CHECK(h->process.pid == 1234);
  CHECK(h->process.start == 98765);
  CHECK(h->port == 3128);
  CHECK_FALSE(ParsePidFile("{}").ok());
  CHECK_FALSE(ParsePidFile("garbage").ok());
  CHECK(StopRelayFromPidFile("/nonexistent/sandshim-relay.pid").ok());
  CHECK(StopRelay({0, 0}).ok());
  o.netns = "/run/s/relay.netns";
  o.host = "10.200.0.1";  // the relay's end of a session's veth link
  CHECK(RelayArgv(o, 3)[5] == "10.200.0.1:3128");
}

#include "shim/net/egress.h"
#include "shim/linux/netns.h"

TEST_CASE("net: egress undo is idempotent, proxy args and env") {
  // Idempotent undo (the session journal's egress steps): nothing there is done, not an error.
  CHECK(StopRelayFromPidFile("/nonexistent/sandshim-relay.pid").ok());
  CHECK(RemoveNetns("/nonexistent/sandshim-netns").ok());
  ProxyProcessOptions o;
  o.allow_domains = {"pypi.org"};
  o.deny_domains = {"*.evil.com"};
  o.audit_file = "/a.log";
  o.session = "s1";
  auto a = ProxyArgs(o);
  CHECK(std::vector<std::string>(a.begin(), a.begin() + 8) ==
        std::vector<std::string>{"--allow-domain", "pypi.org", "--deny-domain", "*.evil.com", "--audit", "/a.log",
                                 "--session", "s1"});
  CHECK(std::find(a.begin(), a.end(), "--relay-mode") != a.end());
  auto env = ProxyEnv(3128);
  CHECK(std::find(env.begin(), env.end(), "HTTP_PROXY=http://127.0.0.1:3128") != env.end());
  CHECK(std::find(env.begin(), env.end(), "https_proxy=http://127.0.0.1:3128") != env.end());
}

TEST_CASE("net: plain HTTP origin head carries the checked authority as Host, never the client's") {
  Target t{"allowed.test", 8099, "/b?x=1"};
  auto fwd = ForwardedHeaders({{"Host", "attacker.example"}, {"Accept", "*/*"}, {"HOST", "evil"},
                               {"Proxy-Authorization", "x"}, {"Connection", "X-Secret"}, {"X-Secret", "1"}});
  REQUIRE(fwd.ok());
  auto h = OriginHead("GET", t, *fwd);
  CHECK(h.rfind("GET /b?x=1 HTTP/1.1\r\nHost: allowed.test:8099\r\n", 0) == 0);
  CHECK(h.find("attacker") == std::string::npos);
  CHECK(h.find("evil") == std::string::npos);
  CHECK(h.find("Proxy-Authorization") == std::string::npos);
  CHECK(h.find("X-Secret") == std::string::npos);
  CHECK(h.find("Accept: */*\r\n") != std::string::npos);
  CHECK(h.ends_with("Connection: close\r\n\r\n"));
  CHECK(OriginHead("GET", {"a.test", 80, "/"}, {}).find("Host: a.test\r\n") != std::string::npos);
  CHECK(OriginHead("GET", {"::1", 8080, "/"}, {}).find("Host: [::1]:8080\r\n") != std::string::npos);
}

TEST_CASE("net: a Connection header never drops what the proxy frames or routes by") {
  for (const char* spelling : {"content-length", "Content-Length", "close, Content-Length", " keep-alive ,\tTRANSFER-ENCODING",
                               "host"}) {
    auto fwd = ForwardedHeaders({{"Connection", spelling}, {"Content-Length", "1"}});
    CHECK_MESSAGE(!fwd.ok(), spelling);
  }
  auto fwd = ForwardedHeaders({{"Connection", "x-a, X-B"}, {"X-A", "1"}, {"x-b", "2"}, {"X-C", "3"}, {"Content-Length", "1"}});
  REQUIRE(fwd.ok());
  CHECK(*fwd == std::vector<std::pair<std::string, std::string>>{{"X-C", "3"}, {"Content-Length", "1"}});
}

TEST_CASE("net: pipelined plain HTTP requests: only the first request's body is forwarded") {
  CHECK(*PlainBodyLength(false, false, 0) == 0);
  CHECK(*PlainBodyLength(false, true, 5) == 5);
  CHECK_FALSE(PlainBodyLength(true, false, 0).ok());  // chunked: its end needs parsing
  CHECK_FALSE(PlainBodyLength(true, true, 5).ok());
  std::string_view after = "GET http://denied.test/d HTTP/1.1\r\nHost: denied.test\r\n\r\n";
  auto [fwd, drop] = SplitAfterHead(after, 0);  // a GET has no body: the next head is dropped
  CHECK(fwd.empty());
  CHECK(drop == after);
  std::string body_then_head = std::string("hello") + std::string(after);
  auto [fwd2, drop2] = SplitAfterHead(body_then_head, 5);
  CHECK(fwd2 == "hello");
  CHECK(drop2 == after);
  auto [fwd3, drop3] = SplitAfterHead("hel", 5);  // the rest of the body comes later
  CHECK(fwd3 == "hel");
  CHECK(drop3.empty());
}

TEST_CASE("net: metadata addresses are refused even with --allow-private, unless --allow-cidr names them") {
  AddressPolicy p;
  p.allow_private = true;
  for (const char* m : {"169.254.169.254", "fd00:ec2::254", "100.100.100.200", "168.63.129.16", "169.254.170.2",
                        "::ffff:169.254.169.254", "192.0.0.192"}) {
    CAPTURE(m);
    auto a = *ParseAddress(m);
    CHECK(Classify(a) == AddrClass::kMetadata);
    CHECK_FALSE(p.Check(a).allowed);
  }
  CHECK(p.Check(*ParseAddress("100.100.100.1")).allowed);  // the rest of CGNAT: still --allow-private
  CHECK(p.Check(*ParseAddress("fd00:ec2::1")).allowed);
  p.allow.push_back(*ParseCidr("100.100.100.200/32"));
  CHECK(p.Check(*ParseAddress("100.100.100.200")).allowed);
}

TEST_CASE("net: non-canonical IPv4 literals are addresses, as inet_aton reads them") {
  for (const char* t : {"2130706433", "0x7f.1", "127.1", "0177.0.0.1", "0x7f000001", "127.0.1"}) {
    CAPTURE(t);
    CHECK(NormalizeHost(t).rfind("127.0.", 0) == 0);
    CHECK(IsIpLiteral(NormalizeHost(t)));
    CHECK(ParseAddress(t)->to_string().rfind("127.0.", 0) == 0);
  }
  CHECK(NormalizeHost("2852039166") == "169.254.169.254");
  for (const char* name : {"example.com", "1e100.net", "123abc.de", "cafe.example", "0x7f.example"}) {
    CAPTURE(name);
    CHECK(NormalizeHost(name) == name);
    CHECK_FALSE(IsIpLiteral(NormalizeHost(name)));
  }
  // So '*' (names only) does not admit them, and no upstream proxy ever sees them as names.
  auto rules = *DomainRules::Make({"*"}, {});
  auto t = *ParseAbsoluteTarget("http://2130706433/");
  CHECK(t.host == "127.0.0.1");
  CHECK_FALSE(rules.Decide(t.host, t.port).allowed);
}

TEST_CASE("net: this host's own addresses are refused unless --allow-cidr names them") {
  AddressPolicy p;
  p.host_addresses = {*ParseAddress("203.0.113.7"), *ParseAddress("2001:db8::7")};
  CHECK(p.Check(*ParseAddress("203.0.113.8")).allowed);
  CHECK_FALSE(p.Check(*ParseAddress("203.0.113.7")).allowed);
  CHECK_FALSE(p.Check(*ParseAddress("::ffff:203.0.113.7")).allowed);
  CHECK_FALSE(p.Check(*ParseAddress("2001:db8::7")).allowed);
  CHECK(p.Check(*ParseAddress("203.0.113.7")).reason == "203.0.113.7 is a local interface address");
  p.allow.push_back(*ParseCidr("203.0.113.7/32"));
  CHECK(p.Check(*ParseAddress("203.0.113.7")).allowed);
  p.host_addresses.push_back(*ParseAddress("127.0.0.1"));  // lo keeps its own class and reason
  CHECK(p.Check(*ParseAddress("127.0.0.1")).rule == "loopback");
}

TEST_CASE("L3: the upstream proxy from --proxy or from --proxy-file's first line, never both") {
  CHECK(ResolveUpstream("http://corp:3128", "", false).value() == "http://corp:3128");
  CHECK(ResolveUpstream("", "", false).value().empty());
  CHECK(ResolveUpstream("", "http://u:p@corp:3128\r\n# comment\n", true).value() == "http://u:p@corp:3128");
  CHECK(ResolveUpstream("", "http://corp:3128", true).value() == "http://corp:3128");
  CHECK_FALSE(ResolveUpstream("http://a:1", "http://b:2\n", true).ok());
  CHECK_FALSE(ResolveUpstream("", "\n", true).ok());
  net::ProxyProcessOptions o;
  o.upstream_file = "/run/secrets/proxy";
  auto args = ProxyArgs(o);
  CHECK(std::find(args.begin(), args.end(), "--proxy-file") != args.end());
  CHECK(std::find(args.begin(), args.end(), "--proxy") == args.end());
}
