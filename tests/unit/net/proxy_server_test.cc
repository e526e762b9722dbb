// net::ProxyServer in-process, without root: the proxy on a loopback port with its own
// io_context thread and the static resolver, in front of local origins that record the
// bytes they receive. Every assertion is on bytes on the wire (what the client got back,
// what an origin received) or on the parsed audit line.
//
// Seam: the address policy refuses loopback by default; --allow-cidr 127.0.0.1/32 (the
// policy's own allow list) makes 127.0.0.1 the one "public" origin, so every other loopback
// address (127.0.0.2 here) stays refused like any internal service.
#include <doctest/doctest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/json.hpp>
#include <functional>

#include "tests/unit/loopback_http.h"
#include "shim/core/fs.h"
#include "shim/net/proxy_server.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::net;
using namespace sandshim::testing;
using namespace std::chrono_literals;

namespace {
// The proxy under test on 127.0.0.1, running on its own io_context thread.
class Proxy {
 public:
  explicit Proxy(const std::filesystem::path& audit_file, const std::function<void(ProxyOptions&)>& tweak = {})
      : audit_file_(audit_file) {
    ProxyOptions o;
    o.rules = DomainRules::Make({"allowed.test", "rebind.test", "mixed.test", "hostaddr.test", "127.0.0.1", "127.0.0.2",
                                 "169.254.169.254", "203.0.113.9"},
                                {"denied.test"})
                  .value();
    o.addresses.allow = {ParseCidr("127.0.0.1/32").value()};
    o.addresses.host_addresses = {boost::asio::ip::make_address("203.0.113.9")};
    o.session = "unit";
    o.header_timeout = 5s;
    o.connect_timeout = 2s;
    if (tweak) tweak(o);
    auto r = std::make_unique<StaticResolver>(nullptr);
    for (const char* spec : {"allowed.test=127.0.0.1", "denied.test=127.0.0.1",
                             // The rebinding attacker: harmless first, internal on every later lookup.
                             "rebind.test=127.0.0.1", "rebind.test=127.0.0.2",
                             "mixed.test=127.0.0.1,169.254.169.254", "hostaddr.test=203.0.113.9"})
      REQUIRE(r->Add(spec).ok());
    server_.emplace(io_, std::move(o), std::move(r), AuditLog::Open(audit_file).value());
    UniqueFd l = Listen("127.0.0.1", 0, &port_);
    REQUIRE(l.valid());
    REQUIRE(server_->Serve(std::move(l)).ok());
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Proxy() {
    io_.stop();
    thread_.join();
    server_.reset();  // stops accepting; open connections go with the io_context
  }

  // Sends raw on a fresh connection, reads the answer until the proxy closes.
  std::string Exchange(const std::string& raw) {
    UniqueFd c = Connect();
    if (!c.valid() || !SendAll(c.get(), raw)) return "";
    return ReadUntil(c.get());
  }
  UniqueFd Connect() {
    UniqueFd c(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    SetTimeouts(c.get());
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port_);
    ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (::connect(c.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return {};
    return c;
  }
  // The audit lines so far, parsed; waits up to 3 s for at least n (a line is written when
  // the connection ends, which may be just after the client saw its answer).
  std::vector<boost::json::object> Audit(size_t n) {
    std::vector<boost::json::object> lines;
    for (int i = 0; i < 300; ++i) {
      lines.clear();
      auto text = fs::ReadFile(audit_file_);
      size_t pos = 0;
      while (text.ok() && pos < text->size()) {
        auto eol = text->find('\n', pos);
        if (eol == std::string::npos) break;
        lines.push_back(boost::json::parse(text->substr(pos, eol - pos)).as_object());
        pos = eol + 1;
      }
      if (lines.size() >= n) break;
      std::this_thread::sleep_for(10ms);
    }
    return lines;
  }

 private:
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_{io_.get_executor()};
  std::filesystem::path audit_file_;
  std::optional<ProxyServer> server_;
  uint16_t port_ = 0;
  std::thread thread_;
};

std::string Get(const std::string& host, uint16_t port, const std::string& path = "/",
                const std::string& extra_headers = "") {
  std::string auth = host + ":" + std::to_string(port);
  return "GET http://" + auth + path + " HTTP/1.1\r\nHost: " + auth + "\r\n" + extra_headers + "\r\n";
}

std::string Str(const boost::json::value& v) { return std::string(v.as_string()); }

// The audit line of the connection to host (lines are written as connections end, so
// their order need not be the order of the requests).
boost::json::object ByHost(const std::vector<boost::json::object>& lines, const std::string& host) {
  for (const auto& l : lines)
    if (Str(l.at("host")) == host) return l;
  return {};
}

}  // namespace

TEST_CASE("proxy: an allowed name is forwarded to the checked address, in origin form, hop-by-hop headers gone") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  auto answer = Parse(proxy.Exchange(
      Get("allowed.test", origin.port(), "/path?q=1",
          "Connection: keep-alive, X-Listed-In-Connection\r\nKeep-Alive: timeout=5\r\nProxy-Authorization: Basic Zm9vOmJhcg==\r\n"
          "Proxy-Connection: keep-alive\r\nTE: trailers\r\nUpgrade: h2c\r\nTrailer: X-T\r\nX-Listed-In-Connection: 1\r\n"
          "X-Kept: yes\r\n")));
  CHECK(answer.status() == 200);
  CHECK(answer.body == "hello");
  REQUIRE(origin.WaitConnections(1));
  auto req = Parse(origin.received(0));
  CHECK(req.start_line == "GET /path?q=1 HTTP/1.1");
  CHECK(req.header("host") == "allowed.test:" + std::to_string(origin.port()));
  CHECK(req.header("x-kept") == "yes");
  CHECK(req.headers.at("connection") == std::vector<std::string>{"close"});  // the proxy's own, alone
  for (const char* hop : {"keep-alive", "proxy-authorization", "proxy-connection", "te", "upgrade", "trailer",
                          "x-listed-in-connection"})
    CHECK_MESSAGE(!req.has(hop), hop);
  auto audit = proxy.Audit(1);
  REQUIRE(audit.size() == 1);
  CHECK(Str(audit[0].at("decision")) == "allow");
  CHECK(Str(audit[0].at("host")) == "allowed.test");
  CHECK(Str(audit[0].at("address")) == "127.0.0.1");
  CHECK(Str(audit[0].at("rule")) == "allowed.test");
  CHECK(audit[0].at("status").as_int64() == 200);
  CHECK(audit[0].at("bytes_up").as_int64() == static_cast<int64_t>(origin.received(0).size()));
}

TEST_CASE("proxy: a denied name and an unlisted one get 403 naming the rule; nothing is connected") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  auto denied = Parse(proxy.Exchange(Get("denied.test", origin.port())));
  CHECK(denied.status() == 403);
  CHECK(denied.header("x-sandshim-rule") == "denied.test");
  auto unlisted = Parse(proxy.Exchange(Get("other.test", origin.port())));
  CHECK(unlisted.status() == 403);
  CHECK(unlisted.header("x-sandshim-rule") == "default-deny");
  auto audit = proxy.Audit(2);
  REQUIRE(audit.size() == 2);
  auto line = ByHost(audit, "denied.test");
  REQUIRE(line.contains("decision"));
  CHECK(Str(line.at("decision")) == "deny");
  CHECK(Str(line.at("rule")) == "denied.test");
  CHECK(line.at("status").as_int64() == 403);
  CHECK(origin.connections() == 0);
}

TEST_CASE("proxy: DNS rebinding: the connection goes to the address checked, the next lookup is checked again") {
  testing::TempDir d;
  Origin outside("127.0.0.1", 0);
  REQUIRE(outside.ok());
  // The internal service the attacker rebinds to: same port, a refused (loopback) address.
  Origin internal("127.0.0.2", outside.port());
  REQUIRE(internal.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  // First lookup: 127.0.0.1, checked and pinned. Had the proxy resolved again to connect,
  // it would have got 127.0.0.2 and the internal origin would have this request.
  auto first = Parse(proxy.Exchange(Get("rebind.test", outside.port(), "/first")));
  CHECK(first.status() == 200);
  REQUIRE(outside.WaitConnections(1));
  CHECK(Parse(outside.received(0)).start_line == "GET /first HTTP/1.1");
  // Later lookups answer 127.0.0.2: refused before any connection.
  auto second = Parse(proxy.Exchange(Get("rebind.test", outside.port(), "/second")));
  CHECK(second.status() == 403);
  CHECK(second.header("x-sandshim-rule") == ClassName(AddrClass::kLoopback));
  // One answer mixing the outside and metadata: refused whole, not filtered.
  auto mixed = Parse(proxy.Exchange(Get("mixed.test", outside.port(), "/mixed")));
  CHECK(mixed.status() == 403);
  CHECK(mixed.header("x-sandshim-rule") == ClassName(AddrClass::kMetadata));
  CHECK(internal.connections() == 0);
  CHECK(outside.connections() == 1);
}

TEST_CASE("proxy: metadata, other loopback and this host's own addresses are refused even when named") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  struct Case {
    std::string host;
    AddrClass cls;
  };
  for (const Case& c : {Case{"169.254.169.254", AddrClass::kMetadata}, Case{"127.0.0.2", AddrClass::kLoopback},
                        Case{"203.0.113.9", AddrClass::kThisHost}, Case{"hostaddr.test", AddrClass::kThisHost}}) {
    auto plain = Parse(proxy.Exchange(Get(c.host, 80)));
    CHECK_MESSAGE(plain.status() == 403, c.host);
    CHECK_MESSAGE(plain.header("x-sandshim-rule") == ClassName(c.cls), c.host);
    auto tunnel = Parse(proxy.Exchange("CONNECT " + c.host + ":443 HTTP/1.1\r\nHost: " + c.host + ":443\r\n\r\n"));
    CHECK_MESSAGE(tunnel.status() == 403, c.host);
  }
  CHECK(origin.connections() == 0);
}

TEST_CASE("proxy: a chunked plain-HTTP body gets 411 and never reaches the origin") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  std::string auth = "allowed.test:" + std::to_string(origin.port());
  auto answer = Parse(proxy.Exchange("POST http://" + auth + "/upload HTTP/1.1\r\nHost: " + auth +
                                     "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));
  CHECK(answer.status() == 411);
  CHECK(answer.header("x-sandshim-rule") == "transfer-encoding");
  CHECK(origin.connections() == 0);
}

TEST_CASE("proxy: one request per connection: a pipelined second request is not forwarded") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  // The second request names a denied host: forwarded as bytes, it would skip its check.
  std::string two = Get("allowed.test", origin.port(), "/one") + Get("denied.test", origin.port(), "/two");
  auto raw = proxy.Exchange(two);
  auto answer = Parse(raw);
  CHECK(answer.status() == 200);
  CHECK(answer.body == "hello");  // one answer, nothing after it
  REQUIRE(origin.WaitConnections(1));
  std::string got = origin.received(0);
  CHECK(CountRequestLines(got) == 1);
  CHECK(Parse(got).start_line == "GET /one HTTP/1.1");
  CHECK(got.find("/two") == std::string::npos);
  CHECK(origin.connections() == 1);
}

TEST_CASE("proxy: CONNECT to an allowed name tunnels bytes untouched; a denied one gets 403") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl");
  std::string auth = "allowed.test:" + std::to_string(origin.port());
  {
    UniqueFd c = proxy.Connect();
    REQUIRE(c.valid());
    REQUIRE(SendAll(c.get(), "CONNECT " + auth + " HTTP/1.1\r\nHost: " + auth + "\r\n\r\n"));
    std::string established = ReadUntil(c.get(), "\r\n\r\n");
    CHECK(established == "HTTP/1.1 200 Connection established\r\n\r\n");
    // Inside the tunnel nothing is rewritten: not even a Proxy-* header is touched.
    std::string inner = "GET /inner HTTP/1.1\r\nHost: x\r\nProxy-Authorization: inner\r\n\r\n";
    REQUIRE(SendAll(c.get(), inner));
    auto answer = Parse(ReadUntil(c.get()));
    CHECK(answer.status() == 200);
    CHECK(answer.body == "hello");
  }
  REQUIRE(origin.WaitConnections(1));
  CHECK(origin.received(0) == "GET /inner HTTP/1.1\r\nHost: x\r\nProxy-Authorization: inner\r\n\r\n");
  auto denied = Parse(proxy.Exchange("CONNECT denied.test:443 HTTP/1.1\r\nHost: denied.test:443\r\n\r\n"));
  CHECK(denied.status() == 403);
  CHECK(denied.header("x-sandshim-rule") == "denied.test");
  auto audit = proxy.Audit(2);
  REQUIRE(audit.size() == 2);
  auto allowed = ByHost(audit, "allowed.test"), refused = ByHost(audit, "denied.test");
  REQUIRE(allowed.contains("decision"));
  REQUIRE(refused.contains("decision"));
  CHECK(Str(allowed.at("method")) == "CONNECT");
  CHECK(Str(allowed.at("decision")) == "allow");
  CHECK(Str(allowed.at("address")) == "127.0.0.1");
  CHECK(Str(refused.at("decision")) == "deny");
  CHECK(origin.connections() == 1);
}

TEST_CASE("proxy: limits: an oversized request head gets 431") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  Proxy proxy(d.path() / "audit.jsonl", [](ProxyOptions& o) { o.max_header_bytes = 512; });
  auto big = Parse(proxy.Exchange(Get("allowed.test", origin.port(), "/", "X-Big: " + std::string(1024, 'a') + "\r\n")));
  CHECK(big.status() == 431);
  CHECK(big.header("x-sandshim-rule") == "max-header-bytes");
  CHECK(origin.connections() == 0);
}

TEST_CASE("proxy: limits: a connection past max-connections gets 503 unread") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  // A fresh proxy with one slot. The holder's handshake completes first, so it is ahead in
  // the accept queue: the proxy counts it before it accepts the next connection.
  Proxy proxy(d.path() / "audit.jsonl", [](ProxyOptions& o) { o.max_connections = 1; });
  UniqueFd holder = proxy.Connect();
  REQUIRE(holder.valid());
  auto refused = Parse(proxy.Exchange(Get("allowed.test", origin.port())));
  CHECK(refused.status() == 503);
  CHECK(refused.header("x-sandshim-rule") == "max-connections");
  CHECK(origin.connections() == 0);
}

TEST_CASE("proxy: secrets: the value goes into plain HTTP to its host only; a placeholder elsewhere is refused") {
  testing::TempDir d;
  Origin origin("127.0.0.1", 0);
  REQUIRE(origin.ok());
  const std::string ph = "sshim-secret-0123456789abcdef0123456789abcdef";
  Proxy proxy(d.path() / "audit.jsonl", [&](ProxyOptions& o) {
    o.secrets = std::make_shared<InterceptShared>();
    // Plain HTTP only by opting in, on the named port (the origin's, known once it listens).
    o.secrets->book = SecretBook::Make({{.name = "TOK", .hosts = {"allowed.test:" + std::to_string(origin.port())},
                                         .header = "X-Token", .placeholder = ph, .schemes = {"http"}},
                                        {.name = "TLS", .hosts = {"allowed.test"}, .header = "",
                                         .placeholder = "sshim-secret-ffff0123456789abcdef0123456789ab"}})
                          .value();
    REQUIRE(o.secrets->book.Set("TOK", SecretBytes::From("the-value").value()).ok());
    REQUIRE(o.secrets->book.Set("TLS", SecretBytes::From("tls-value").value()).ok());
  });
  auto answer = Parse(proxy.Exchange(Get("allowed.test", origin.port(), "/x?q=1", "X-Token: t " + ph + "\r\n")));
  CHECK(answer.status() == 200);
  REQUIRE(origin.WaitConnections(1));
  CHECK(Parse(origin.received(0)).header("x-token") == "t the-value");
  // An https-only secret's placeholder over plain HTTP: refused by the same gate, nothing sent.
  auto clear = Parse(proxy.Exchange(Get("allowed.test", origin.port(), "/",
                                        "Authorization: sshim-secret-ffff0123456789abcdef0123456789ab\r\n")));
  CHECK(clear.status() == 403);
  CHECK(clear.header("x-sandshim-rule") == "secret-scope");
  // The same placeholder to a host the secret is not for: 403, nothing connected.
  auto refused = Parse(proxy.Exchange(Get("hostaddr.test", origin.port(), "/", "X-Leak: " + ph + "\r\n")));
  CHECK(refused.status() == 403);
  CHECK(refused.header("x-sandshim-rule") == "secret-exfiltration");
  CHECK(origin.connections() == 1);
  auto audit = proxy.Audit(4);
  int injected = 0, denied = 0;
  for (const auto& l : audit) {
    if (Str(l.at("decision")) == "inject") {
      ++injected;
      CHECK(Str(l.at("secret")) == "TOK");
      CHECK(Str(l.at("path")) == "/x");
    }
    if (Str(l.at("decision")) == "deny") denied += Str(l.at("rule")) == "secret-exfiltration";
    CHECK(boost::json::serialize(l).find("the-value") == std::string::npos);
  }
  CHECK(injected == 1);
  CHECK(denied == 1);
}
