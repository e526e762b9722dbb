// The request gate (shim/net/request_gate.h) without sockets: the verdicts both transports
// act on, and property tests over header spellings (every spelling an origin folds to the
// same name is treated as that name: CGI/WSGI '_' for '-', Apache's any-non-alnum, case,
// surrounding whitespace), path and method scope, and the TLS-by-default scheme.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "shim/net/header_names.h"
#include "shim/net/request_gate.h"
#include "shim/net/secret_book.h"

using namespace sandshim;
using namespace sandshim::net;

namespace {

const std::string kTok = "sshim-secret-00112233445566778899aabbccddeeff";  // TOKEN: placeholder, no template
const std::string kKey = "sshim-secret-ffeeddccbbaa99887766554433221100";  // KEY: template
const std::string kScoped = "sshim-secret-aaaabbbbccccddddeeeeffff00001111";  // SCOPED: /v1/, POST
const std::string kPlain = "sshim-secret-1111222233334444555566667777888a";   // PLAIN: scheme=http, :8080

SecretBook Book() {
  auto b = SecretBook::Make({
      {.name = "TOKEN", .hosts = {"api.test"}, .header = "", .placeholder = kTok},
      {.name = "KEY", .hosts = {"api.test"}, .header = "Authorization: Bearer {}", .placeholder = kKey},
      {.name = "SCOPED", .hosts = {"api.test"}, .header = "X-Api-Key", .placeholder = kScoped, .paths = {"/v1/"},
       .methods = {"POST"}},
      {.name = "PLAIN", .hosts = {"api.test:8080"}, .header = "", .placeholder = kPlain, .schemes = {"http"}},
  });
  REQUIRE(b.ok());
  for (auto [n, v] : {std::pair{"TOKEN", "v-token"}, {"KEY", "v-key"}, {"SCOPED", "v-scoped"}, {"PLAIN", "v-plain"}})
    REQUIRE(b->Set(n, SecretBytes::From(v).value()).ok());
  return std::move(*b);
}

RequestHead Head(std::string method, std::string target, HeaderList h) {
  return {.method = std::move(method), .target = std::move(target), .headers = std::move(h)};
}

Verdict Tls(const SecretBook& b, RequestHead h) {
  return GateTlsRequest(h, Target{"api.test", 443, ""}, Asker{}, &b);
}

bool Carries(const Verdict& v, std::string_view value) {
  for (const auto& [k, x] : v.headers)
    if (x.find(value) != std::string::npos) return true;
  return false;
}

// The spellings an origin may fold onto `name` (lower-case, dashed): case changes, '_' or
// '.' (Apache CGI: any non-alphanumeric) for each '-', surrounding whitespace.
std::vector<std::string> Spellings(std::string_view name, std::mt19937& rng, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::string s;
    for (char c : name) {
      if (c == '-') s += "-_.~+"[rng() % 5];
      else s += (rng() % 2) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    }
    if (rng() % 4 == 0) s = " " + s + "\t";
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("header names: folded as origins fold them") {
  CHECK(CanonicalHeaderName("X_Request_Id") == "x-request-id");
  CHECK(CanonicalHeaderName("x.request~ID") == "x-request-id");
  CHECK(CanonicalHeaderName(" Origin\t") == "origin");
  CHECK(ReflectableHeader("Access_Control_Request_Headers"));
  CHECK(ReflectableHeader("X_REQUEST_ID"));
  CHECK(ReflectableHeader("sec_fetch_site"));
  CHECK_FALSE(ReflectableHeader("Authorization"));
  CHECK(DefaultCredentialHeader("x_api_key"));
  CHECK_FALSE(DefaultCredentialHeader("X-Token"));
}

TEST_CASE("request gate: property: a placeholder in any spelling of a reflected header is refused") {
  auto b = Book();
  std::mt19937 rng(32);
  for (std::string_view name : {"origin", "access-control-request-headers", "access-control-request-method",
                                "x-request-id", "request-id", "x-correlation-id", "referer", "user-agent",
                                "idempotency-key", "x-forwarded-for", "traceparent", "x-amzn-trace-id", "sec-fetch-dest"}) {
    for (const auto& spelled : Spellings(name, rng, 24)) {
      for (const auto& ph : {kTok, kScoped}) {
        auto v = Tls(b, Head("POST", "/v1/x", {{spelled, ph}}));
        CHECK_MESSAGE(v.rule == "secret-reflection", spelled);
        CHECK_MESSAGE(v.status == 403, spelled);
      }
      // Control: the same header with a harmless marker goes through as sent.
      auto ok = Tls(b, Head("GET", "/", {{spelled, "harmless-marker"}}));
      CHECK_FALSE(ok.refused());
      CHECK(Carries(ok, "harmless-marker"));
    }
  }
}

TEST_CASE("request gate: property: deny by default: only the secret's header, in any spelling") {
  auto b = Book();
  std::mt19937 rng(7);
  // TOKEN names no header: the credential headers only.
  for (std::string_view name : {"authorization", "x-api-key", "api-key", "x-auth-token", "private-token"})
    for (const auto& spelled : Spellings(name, rng, 16)) {
      auto v = Tls(b, Head("GET", "/", {{spelled, "token " + kTok}}));
      // Case alone: the header; '_', '.', '~', '+' or whitespace: a header origins disagree on.
      bool plain = spelled.find_first_of("_.~+ \t") == std::string::npos;
      CHECK_MESSAGE(v.refused() != plain, spelled);
      // (Authorization is KEY's template here: the client's is replaced whatever it held.)
      if (name != "authorization") CHECK(Carries(v, "token v-token") == plain);
    }
  for (std::string_view name : {"x-token", "x-custom", "cookie", "content-type", "accept", "x-debug", "x-echo-me",
                                "link", "x-original-url", "destination", "location"}) {
    auto v = Tls(b, Head("GET", "/", {{std::string(name), kTok}}));
    CHECK_MESSAGE(v.rule == "secret-reflection", name);
    CHECK_FALSE(Carries(v, "v-token"));
  }
  // In a header name, never.
  CHECK(Tls(b, Head("GET", "/", {{"X-" + kTok, "1"}})).rule == "secret-reflection");
  // SCOPED names X-Api-Key: there (any spelling) and nowhere else, not even Authorization.
  for (const auto& spelled : Spellings("x-api-key", rng, 16)) {
    bool plain = spelled.find_first_of("_.~+ \t") == std::string::npos;
    CHECK_MESSAGE(Tls(b, Head("POST", "/v1/a", {{spelled, kScoped}})).refused() != plain, spelled);
  }
  CHECK(Tls(b, Head("POST", "/v1/a", {{"Authorization", kScoped}})).rule == "secret-reflection");
}

TEST_CASE("request gate: a template replaces every spelling of its header") {
  auto b = Book();
  for (std::string spelled : {"authorization", "AUTHORIZATION", "Authorization_", "authorization "}) {
    auto v = Tls(b, Head("GET", "/", {{spelled, "Bearer attacker"}, {"Accept", "*/*"}}));
    REQUIRE_FALSE(v.refused());
    int n = 0;
    for (const auto& [k, x] : v.headers) n += CanonicalHeaderName(k) == CanonicalHeaderName(spelled);
    if (CanonicalHeaderName(spelled) == "authorization") CHECK(n == 1);
    CHECK(Carries(v, "Bearer v-key"));
  }
}

TEST_CASE("request gate: scoped injection: paths and methods") {
  auto b = Book();
  auto in = Tls(b, Head("POST", "/v1/chat?x=1", {{"X-Api-Key", kScoped}}));
  REQUIRE_FALSE(in.refused());
  CHECK(Carries(in, "v-scoped"));
  CHECK(std::ranges::count(in.injected, std::string("SCOPED")) == 1);
  // Out of scope with the placeholder: refused; the template secret is still set (unscoped).
  for (auto [m, t] : {std::pair{"GET", "/v1/chat"}, {"POST", "/echo"}, {"POST", "/v1"}, {"post", "/v1/x"},
                      {"POST", "/v1/../echo"}, {"POST", "/v1/%2e%2e/echo"}, {"POST", "/v1/..%2fecho"},
                      {"POST", "/v1/..;/echo"}, {"POST", "/v1%2f../echo"}, {"POST", "/v1/.%2E/echo"},
                      {"POST", "/v1/%252e%252e/echo"}, {"POST", "/v1\\..\\echo"}, {"POST", "/v1/./x"},
                      {"POST", "/V1/x"}}) {
    auto v = Tls(b, Head(m, t, {{"X-Api-Key", kScoped}}));
    CHECK_MESSAGE(v.rule == "secret-scope", m, " ", t);
  }
  // A method override would let the origin route the POST as a GET.
  CHECK(Tls(b, Head("POST", "/v1/x", {{"X-Api-Key", kScoped}, {"X_HTTP_Method_Override", "GET"}})).rule == "secret-scope");
  CHECK(Tls(b, Head("POST", "/v1/x?_method=GET", {{"X-Api-Key", kScoped}})).rule == "secret-scope");
  // ... in every spelling PHP, Rails and Laravel decode to _method (red team 2026-11-29), and
  // in a form body, which the proxy does not read.
  for (const char* q : {"?.method=DELETE", "?%2Emethod=DELETE", "?a=1&%20_method=DELETE", "?_%6Dethod=DELETE",
                        "?%5F%6Dethod=DELETE", "?a=1;_method=DELETE", "?+_method=DELETE", "?_method[]=DELETE",
                        "?_METHOD=DELETE", "?%255fmethod=DELETE", "?x_http_method_override=GET"}) {
    auto v = Tls(b, Head("POST", std::string("/v1/x") + q, {{"X-Api-Key", kScoped}}));
    CHECK_MESSAGE(v.rule == "secret-scope", q);
  }
  CHECK_FALSE(Tls(b, Head("POST", "/v1/x?payment_method=card&methods=2", {{"X-Api-Key", kScoped}})).refused());
  CHECK(Tls(b, Head("POST", "/v1/x", {{"X-Api-Key", kScoped}, {"Content-Type", "application/x-www-form-urlencoded"}})).rule ==
        "secret-scope");
  CHECK(Tls(b, Head("POST", "/v1/x", {{"X-Api-Key", kScoped}, {"content_type", "Multipart/Form-Data; boundary=x"}})).rule ==
        "secret-scope");
  CHECK_FALSE(Tls(b, Head("POST", "/v1/x", {{"X-Api-Key", kScoped}, {"Content-Type", "application/json"}})).refused());
  // A path-scoped secret and a header that routes to another path.
  for (const char* h : {"X-Original-URL", "x_rewrite_url", "X-Original-URI"})
    CHECK_MESSAGE(Tls(b, Head("POST", "/v1/x", {{"X-Api-Key", kScoped}, {h, "/admin"}})).rule == "secret-scope", h);
  // A Connection header cannot drop the header a value goes in (the audit would name an
  // injection that never happened) nor the length the body is framed by.
  auto dropped = Tls(b, Head("POST", "/v1/x", {{"X-Api-Key", kScoped}, {"Connection", "x-api-key"}}));
  CHECK_FALSE(dropped.refused());
  CHECK(std::ranges::count(dropped.injected, std::string("SCOPED")) == 0);
  CHECK_FALSE(Carries(dropped, "v-scoped"));
  CHECK(Tls(b, Head("POST", "/v1/x", {{"Connection", "Content-Length"}, {"Content-Length", "1"}})).rule == "connection-header");
  // TRACE by override: refused for any secret that would go in (the template KEY included).
  CHECK(Tls(b, Head("POST", "/x", {{"X-HTTP-Method-Override", " trace"}})).rule == "secret-reflection");
  CHECK(Tls(b, Head("POST", "/x", {{"Authorization", kTok}, {"x_http_method", "TRACK"}})).rule == "secret-reflection");
  CHECK_FALSE(Tls(b, Head("POST", "/x", {{"Authorization", kTok}, {"X-HTTP-Method-Override", "PUT"}})).refused());
  // Without the placeholder, out of scope: the scoped secret simply is not injected.
  auto none = Tls(b, Head("GET", "/echo", {}));
  CHECK_FALSE(none.refused());
  CHECK(std::ranges::count(none.injected, std::string("SCOPED")) == 0);
}

TEST_CASE("request gate: TLS by default; plain HTTP only for scheme=http on its named port") {
  auto b = Book();
  SecretBook* sb = &b;
  auto allow = DomainRules::Make({"api.test", "other.test"}, {}).value();
  auto gate = [&](std::string url, HeaderList h) {
    return GateProxyRequest(Head("GET", url, std::move(h)), Asker{"", &allow}, sb);
  };
  // TOKEN (https only) over plain HTTP: refused with its placeholder, its template not set.
  CHECK(gate("http://api.test/x", {{"Authorization", kTok}}).rule == "secret-scope");
  auto v = gate("http://api.test/x", {});
  REQUIRE_FALSE(v.refused());
  CHECK(v.injected.empty());
  // PLAIN: plain HTTP to api.test:8080 only.
  auto p = gate("http://api.test:8080/x", {{"Authorization", kPlain}});
  REQUIRE_FALSE(p.refused());
  CHECK(Carries(p, "v-plain"));
  CHECK(gate("http://api.test:8081/x", {{"Authorization", kPlain}}).rule == "secret-exfiltration");
  CHECK(GateTlsRequest(Head("GET", "/", {{"Authorization", kPlain}}), Target{"api.test", 8080, ""}, Asker{}, sb).rule ==
        "secret-scope");
  CHECK(b.Intercepts("api.test", 443));
  // Other verdicts of the gate, both transports.
  CHECK(gate("http://other.test/x", {{"X", kTok}}).rule == "secret-exfiltration");
  CHECK(gate("http://nowhere.test/x", {}).status == 403);
  CHECK(gate("https://api.test/x", {}).status == 400);
  auto c = GateProxyRequest(Head("CONNECT", "api.test:443", {}), Asker{"", &allow}, sb);
  CHECK(c.connect);
  CHECK(c.intercept);
  CHECK_FALSE(GateProxyRequest(Head("CONNECT", "other.test:443", {}), Asker{"", &allow}, sb).intercept);
  CHECK(Tls(b, Head("GET", "http://other.test/", {})).rule == "request-target");
  auto chunked = Head("POST", "/", {});
  chunked.transfer_encoding = true;
  CHECK(Tls(b, chunked).status == 411);
  auto body = Head("POST", "/", {});
  body.content_length = 12;
  CHECK(Tls(b, body).body == 12);
}

TEST_CASE("secret rules: what is refused at create") {
  auto check = [](SecretRuleSpec r) { return CheckSecretScope(r); };
  CHECK(check({.name = "A", .hosts = {"a.test"}, .header = "Authorization: Bearer {}"}).ok());
  CHECK(check({.name = "A", .hosts = {"a.test"}, .header = "X-Api-Key"}).ok());
  for (std::string h : {"Origin: {}", "origin: x {}", "X_Request_Id: {}", "Access-Control-Allow-Origin: {}", "Referer",
                        "X-Forwarded-Host: {}", "X_Api_Key: {}"}) {
    auto st = check({.name = "A", .hosts = {"a.test"}, .header = h});
    CHECK_MESSAGE(!st.ok(), h);
    if (!st.ok()) CHECK(st.error().msg.find('\n') == std::string::npos);
  }
  CHECK_FALSE(check({.name = "A", .hosts = {"a.test"}, .schemes = {"http"}}).ok());  // no port: in clear to any
  CHECK(check({.name = "A", .hosts = {"a.test:8080"}, .schemes = {"http"}}).ok());
  CHECK_FALSE(check({.name = "A", .hosts = {"a.test"}, .schemes = {"ftp"}}).ok());
  CHECK_FALSE(check({.name = "A", .hosts = {"a.test"}, .paths = {"v1/"}}).ok());
  CHECK_FALSE(check({.name = "A", .hosts = {"a.test"}, .paths = {"/v1/../x"}}).ok());
  CHECK_FALSE(check({.name = "A", .hosts = {"a.test"}, .methods = {"TRACE"}}).ok());
  CHECK_FALSE(check({.name = "A", .hosts = {"a.test"}, .methods = {"post"}}).ok());
  auto r = ParseSecretRules(FormatSecretRules({{.name = "A", .hosts = {"a.test:80"}, .header = "X-Api-Key",
                                                .placeholder = kTok, .paths = {"/v1/"}, .methods = {"POST"},
                                                .schemes = {"http"}}}));
  REQUIRE(r.ok());
  CHECK(r->front().paths == std::vector<std::string>{"/v1/"});
  CHECK(r->front().methods == std::vector<std::string>{"POST"});
  CHECK(r->front().schemes == std::vector<std::string>{"http"});
}
