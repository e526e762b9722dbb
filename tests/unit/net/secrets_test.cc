// Secrets (docs/SECRETS.md) without root: the flag and profile parsing, the proxy's
// SecretBook policy on request heads (injection, the exfiltration guard, rotation), the
// control socket's request handling, values' checks, the session CA and its leaves (verified
// with OpenSSL as a client would), and what the session layer plans for the sandbox.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "bundle/secret_spec.h"
#include "bundle/session_profile.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/net/session_ca.h"
#include "shim/session/egress/secrets.h"

using namespace sandshim;

namespace {

const std::string kPh1 = "sshim-secret-00112233445566778899aabbccddeeff";
const std::string kPh2 = "sshim-secret-ffeeddccbbaa99887766554433221100";

net::SecretBook Book() {
  auto b = net::SecretBook::Make({{"API", {"api.example.com"}, "Authorization: Bearer {}", kPh1},
                                  {"TOK", {"*.git.test", "raw.test:8443"}, "", kPh2}});
  REQUIRE(b.ok());
  return std::move(*b);
}

// The book's verdict on one request (TLS unless told: secrets default to https only).
net::Injection Apply(const net::SecretBook& b, std::string_view host, uint16_t port, const std::string& target,
                     net::HeaderList& h, std::string_view context = "", std::string_view method = "GET", bool tls = true) {
  return b.Apply({.host = host, .port = port, .tls = tls, .method = method, .target = target, .context = context}, h);
}

std::string Header(const net::HeaderList& h, std::string_view name) {
  for (const auto& [k, v] : h)
    if (k == name) return v;
  return "<none>";
}

}  // namespace

TEST_CASE("secret specs: --secret and its value sources") {
  auto s = bundle::ParseSecretSpec("GH:host=api.github.com,host=*.github.com:header=Authorization: token {}");
  REQUIRE(s.ok());
  CHECK(s->name == "GH");
  CHECK(s->hosts == std::vector<std::string>{"api.github.com", "*.github.com"});
  CHECK(s->header == "Authorization: token {}");
  auto r = bundle::ParseSecretSpec("K:host=a.test,b.test:8443");
  REQUIRE(r.ok());
  CHECK(r->hosts == std::vector<std::string>{"a.test", "b.test:8443"});
  CHECK(r->header.empty());
  CHECK_FALSE(bundle::ParseSecretSpec("K").ok());                           // no hosts
  CHECK_FALSE(bundle::ParseSecretSpec("1K:host=a.test").ok());              // not a variable name
  CHECK_FALSE(bundle::ParseSecretSpec("K:host=").ok());                     // empty host
  CHECK_FALSE(bundle::ParseSecretSpec("K:host=a.test:header=Bearer {}").ok());  // no header name
  CHECK_FALSE(bundle::ParseSecretSpec("K:host=a.test:header=X: {} {}").ok());   // two {}
  CHECK_FALSE(bundle::ParseSecretSpec("K:host=a.test:header=X: a").ok());       // no {}
  CHECK_FALSE(bundle::ParseSecretSpec("K:host=a.test:header=X: {}\r\nY: z").ok());
  auto f = bundle::ParseSecretSource(bundle::SecretSourceKind::kFd, "K=5");
  REQUIRE(f.ok());
  CHECK(f->where == "5");
  CHECK_FALSE(bundle::ParseSecretSource(bundle::SecretSourceKind::kFd, "K=x").ok());
  CHECK_FALSE(bundle::ParseSecretSource(bundle::SecretSourceKind::kEnv, "K=BAD-NAME").ok());
  CHECK_FALSE(bundle::ParseSecretSource(bundle::SecretSourceKind::kFile, "K=").ok());
}

TEST_CASE("secret specs: the profile's \"secrets\" key") {
  bundle::SessionProfile p;
  bundle::ProfileExtras x;
  auto doc = boost::json::parse(R"({"secrets": [{"from_file": "/v", "name": "GH", "hosts": ["api.github.com"],
                                     "header": "Authorization: Bearer {}"}], "secret_trust_bundle": "/ca.pem"})");
  REQUIRE(bundle::ApplyProfileJson(doc.as_object(), &p, &x).ok());
  REQUIRE(p.secrets.size() == 1);
  CHECK(p.secrets[0].hosts[0] == "api.github.com");
  REQUIRE(p.secret_sources.size() == 1);
  CHECK(p.secret_sources[0].name == "GH");
  CHECK(p.secret_trust_bundle == "/ca.pem");
  auto bad = boost::json::parse(R"({"secrets": [{"name": "GH", "hosts": ["a.test"], "value": "x"}]})");
  CHECK_FALSE(bundle::ApplyProfileJson(bad.as_object(), &p, &x).ok());  // a value is never a profile's
  // The record's summary names secrets and hosts; no placeholder.
  p.secrets[0].placeholder = kPh1;
  auto summary = boost::json::serialize(bundle::ProfileSummary(p));
  CHECK(summary.find("api.github.com") != std::string::npos);
  CHECK(summary.find("sshim-secret-") == std::string::npos);
}

TEST_CASE("secret book: header template and placeholder injection, only for the secret's hosts") {
  auto b = Book();
  REQUIRE(b.Set("API", net::SecretBytes::From("v-api").value()).ok());
  REQUIRE(b.Set("TOK", net::SecretBytes::From("v-tok").value()).ok());
  CHECK(b.Intercepts("api.example.com", 443));
  CHECK(b.Intercepts("x.git.test", 443));
  CHECK_FALSE(b.Intercepts("git.test", 443));  // *.x is subdomains only
  CHECK(b.Intercepts("raw.test", 8443));
  CHECK_FALSE(b.Intercepts("raw.test", 443));
  // The template replaces whatever Authorization the client sent.
  net::HeaderList h{{"authorization", "Bearer client"}, {"Accept", "*/*"}};
  auto i = Apply(b, "api.example.com", 443, "/v1", h);
  CHECK_FALSE(i.refused);
  CHECK(i.injected == std::vector<std::string>{"API"});
  CHECK(Header(h, "Authorization") == "Bearer v-api");
  CHECK(Header(h, "authorization") == "<none>");
  // The placeholder, wherever it is in a header value.
  net::HeaderList g{{"Authorization", "token " + kPh2 + " and " + kPh2}};
  i = Apply(b, "a.git.test", 443, "/", g);
  CHECK(i.injected == std::vector<std::string>{"TOK"});
  CHECK(Header(g, "Authorization") == "token v-tok and v-tok");
  // No placeholder and no template: nothing to do.
  net::HeaderList n{{"Accept", "*/*"}};
  i = Apply(b, "a.git.test", 443, "/", n);
  CHECK(i.injected.empty());
  CHECK(n.size() == 1);
}

TEST_CASE("secret book: never where the origin sends it back (red team: reflected Origin, TRACE)") {
  auto b = Book();
  REQUIRE(b.Set("API", net::SecretBytes::From("v-api").value()).ok());
  REQUIRE(b.Set("TOK", net::SecretBytes::From("v-tok").value()).ok());
  for (const char* name : {"Origin", "access-control-request-headers", "Referer", "X-Request-Id", "Idempotency-Key",
                           "X-Forwarded-For", "User-Agent"}) {
    net::HeaderList h{{name, kPh2}};
    auto i = Apply(b, "a.git.test", 443, "/", h);
    CHECK_MESSAGE(i.rule == "secret-reflection", name);
    CHECK(Header(h, name) == kPh2);  // nothing rewritten on a refusal
  }
  // The credential headers still work, and a harmless Origin beside them is fine.
  net::HeaderList ok{{"X-Api-Key", kPh2}, {"Origin", "https://app.test"}};
  CHECK_FALSE(Apply(b, "a.git.test", 443, "/", ok, "", "GET").refused);
  CHECK(Header(ok, "X-Api-Key") == "v-tok");
  // TRACE echoes the request: refused when a value (a placeholder or a template) would go in,
  // allowed when none would.
  net::HeaderList t1{{"Authorization", kPh2}};
  CHECK(Apply(b, "a.git.test", 443, "/", t1, "", "TRACE").rule == "secret-reflection");
  net::HeaderList t2;
  CHECK(Apply(b, "api.example.com", 443, "/", t2, "", "trace").rule == "secret-reflection");  // the template
  net::HeaderList t3;
  CHECK_FALSE(Apply(b, "nothing.test", 80, "/", t3, "", "TRACE").refused);
}

TEST_CASE("secret book: the exfiltration guard and unset values") {
  auto b = Book();
  REQUIRE(b.Set("TOK", net::SecretBytes::From("v-tok").value()).ok());
  net::HeaderList h{{"X-Leak", kPh2}};
  auto i = Apply(b, "evil.test", 80, "/", h);
  CHECK(i.refused);
  CHECK(i.rule == "secret-exfiltration");
  CHECK(i.reason.find("TOK") != std::string::npos);
  CHECK(Header(h, "X-Leak") == kPh2);  // nothing rewritten on a refusal
  net::HeaderList q;
  CHECK(Apply(b, "evil.test", 80, "/?k=" + kPh2, q).refused);  // in the URL
  // Another secret's placeholder to a host that has secrets of its own.
  net::HeaderList c{{"X", kPh2}};
  CHECK(Apply(b, "api.example.com", 443, "/", c).rule == "secret-exfiltration");
  // API has no value: its placeholder is refused; its template alone injects nothing.
  net::HeaderList u{{"Authorization", "Bearer " + kPh1}};
  CHECK(Apply(b, "api.example.com", 443, "/", u).rule == "secret-unset");
  net::HeaderList t{{"Accept", "*/*"}};
  auto none = Apply(b, "api.example.com", 443, "/", t);
  CHECK_FALSE(none.refused);
  CHECK(none.injected.empty());
  // Rotation and removal.
  REQUIRE(b.Set("TOK", net::SecretBytes::From("v2").value()).ok());
  net::HeaderList r{{"Authorization", kPh2}};
  Apply(b, "a.git.test", 443, "/", r);
  CHECK(Header(r, "Authorization") == "v2");
  REQUIRE(b.Remove("TOK").ok());
  net::HeaderList after{{"Authorization", kPh2}};
  CHECK(Apply(b, "a.git.test", 443, "/", after).rule == "secret-unset");
  CHECK_FALSE(b.Set("NOPE", net::SecretBytes::From("x").value()).ok());
  CHECK_FALSE(b.Remove("NOPE").ok());
}

TEST_CASE("secret book: host patterns that cannot match are refused") {
  CHECK(net::CheckSecretHost("api.example.com").ok());
  CHECK(net::CheckSecretHost("*.openai.com").ok());
  CHECK(net::CheckSecretHost("host.test:8443").ok());
  CHECK_FALSE(net::CheckSecretHost("*").ok());
  CHECK_FALSE(net::CheckSecretHost("").ok());
  CHECK_FALSE(net::CheckSecretHost("a..b").ok());
  CHECK_FALSE(net::CheckSecretHost("a.*.b").ok());
  CHECK_FALSE(net::SecretBook::Make({{"K", {"*"}, "", kPh1}}).ok());
  CHECK_FALSE(net::SecretBook::Make({{"K", {"a.test"}, "", "short"}}).ok());
}

TEST_CASE("secret values: checks, and the control socket's requests") {
  CHECK(net::CheckedValue("K", "abc\n")->View() == "abc");
  CHECK(net::CheckedValue("K", "abc\r\n")->View() == "abc");
  auto nl = net::CheckedValue("K", "a\nb");
  REQUIRE_FALSE(nl.ok());
  CHECK(nl.error().msg.find("a\nb") == std::string::npos);  // the error never shows the value
  CHECK_FALSE(net::CheckedValue("K", "").ok());
  CHECK_FALSE(net::CheckedValue("K", std::string(net::kMaxSecretBytes + 1, 'x')).ok());
  CHECK_FALSE(net::CheckedValue("K", std::string("a\0b", 3)).ok());
  auto b = Book();
  CHECK(net::HandleSecretRequest("set\nTOK\nvalue-1", b) == "ok\n");
  CHECK(net::HandleSecretRequest("set\nNOPE\nx", b).starts_with("error: unknown secret"));
  CHECK(net::HandleSecretRequest("rm\nTOK", b) == "ok\n");
  CHECK(net::HandleSecretRequest("get\nTOK", b) == "error: malformed request\n");
  CHECK(net::HandleSecretRequest("set\nTOK\n", b).starts_with("error:"));  // empty value
}

TEST_CASE("session CA: leaves verify against the CA for their host only") {
  auto ca = net::MakeSessionCa("unit");
  REQUIRE(ca.ok());
  CHECK(ca->key.find("PRIVATE KEY") != std::string::npos);
  auto minter = net::LeafMinter::Load(ca->key, ca->cert);
  REQUIRE(minter.ok());
  auto ctx = minter->ContextFor("api.example.com");
  REQUIRE(ctx.ok());
  CHECK(minter->ContextFor("api.example.com")->get() == ctx->get());  // cached
  X509* leaf = SSL_CTX_get0_certificate((*ctx)->native_handle());
  REQUIRE(leaf);
  BIO* bio = BIO_new_mem_buf(ca->cert.data(), static_cast<int>(ca->cert.size()));
  X509* root = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, root);
  auto verify = [&](const char* host) {
    X509_STORE_CTX* v = X509_STORE_CTX_new();
    X509_STORE_CTX_init(v, store, leaf, nullptr);
    X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(v), host, 0);
    X509_VERIFY_PARAM_set_purpose(X509_STORE_CTX_get0_param(v), X509_PURPOSE_SSL_SERVER);
    int ok = X509_verify_cert(v);
    X509_STORE_CTX_free(v);
    return ok == 1;
  };
  CHECK(verify("api.example.com"));
  CHECK_FALSE(verify("other.example.com"));
  X509_STORE_free(store);
  X509_free(root);
  auto ip = minter->ContextFor("203.0.113.7");
  CHECK(ip.ok());
  // A key that is not the certificate's is refused.
  auto other = net::MakeSessionCa("other");
  CHECK_FALSE(net::LeafMinter::Load(other->key, ca->cert).ok());
}

TEST_CASE("session secrets: what the sandbox gets, and what is refused before anything exists") {
  bundle::SessionProfile p;
  p.network = "proxy";
  p.allow_domains = {"api.example.com", ".git.test"};
  p.secrets = {bundle::ParseSecretSpec("API:host=api.example.com:header=Authorization: Bearer {}").value()};
  p.secret_sources = {{"API", bundle::SecretSourceKind::kEnv, "SRC"}};
  CHECK(session::CheckSecrets(p, std::nullopt).ok());
  session::PlanSecrets(p, "/state/s1");
  CHECK(p.secrets[0].placeholder.starts_with("sshim-secret-"));
  CHECK(p.secrets[0].placeholder.size() == 13 + 32);
  CHECK(p.env.at("API") == p.secrets[0].placeholder);
  for (const char* v : session::kTrustVariables) CHECK(p.env.at(v) == "/etc/ssl/certs/ca-certificates.crt");
  REQUIRE(p.mounts.size() == 1);
  CHECK(p.mounts[0].source == "/state/s1/trust.crt");
  CHECK(p.mounts[0].readonly);
  CHECK(session::NewPlaceholder() != session::NewPlaceholder());

  auto refused = [](auto edit) {
    bundle::SessionProfile q;
    q.network = "proxy";
    q.allow_domains = {"api.example.com"};
    q.secrets = {bundle::ParseSecretSpec("API:host=api.example.com").value()};
    q.secret_sources = {{"API", bundle::SecretSourceKind::kFile, "/v"}};
    edit(q);
    return session::CheckSecrets(q, std::nullopt);
  };
  CHECK(refused([](auto&) {}).ok());
  CHECK(refused([](auto& q) { q.network = "none"; }).error().msg.find("--network proxy") != std::string::npos);
  CHECK(refused([](auto& q) { q.secret_sources.push_back({"NOPE", bundle::SecretSourceKind::kFile, "/v"}); })
            .error().msg.find("unknown secret NOPE") != std::string::npos);
  CHECK(refused([](auto& q) { q.secret_sources.clear(); }).error().msg.find("has no value") != std::string::npos);
  CHECK(refused([](auto& q) { q.allow_domains = {"other.test"}; }).error().msg.find("can never match") != std::string::npos);
  CHECK(refused([](auto& q) { q.env["API"] = "x"; }).error().msg.find("--env") != std::string::npos);
  CHECK_FALSE(refused([](auto& q) { q.secrets.push_back(q.secrets[0]); }).ok());
}

TEST_CASE("session secrets: value sources") {
  ::setenv("SSHIM_UNIT_SECRET", "from-env", 1);
  auto v = session::ReadSecretValue({"K", bundle::SecretSourceKind::kEnv, "SSHIM_UNIT_SECRET"});
  REQUIRE(v.ok());
  CHECK(v->View() == "from-env");
  CHECK(::getenv("SSHIM_UNIT_SECRET") == nullptr);  // no child of ours inherits it
  int p[2];
  REQUIRE(::pipe(p) == 0);
  CHECK(::write(p[1], "from-fd\n", 8) == 8);
  ::close(p[1]);
  auto f = session::ReadSecretValue({"K", bundle::SecretSourceKind::kFd, std::to_string(p[0])});
  REQUIRE(f.ok());
  CHECK(f->View() == "from-fd");
  CHECK(::fcntl(p[0], F_GETFD) < 0);  // read once, then closed
  auto missing = session::ReadSecretValue({"K", bundle::SecretSourceKind::kFile, "/nonexistent/v"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().msg.find("/nonexistent/v") != std::string::npos);
  CHECK_FALSE(session::ReadSecretValue({"K", bundle::SecretSourceKind::kFile, "/"}).ok());
  CHECK_FALSE(session::ReadSecretValue({"K", bundle::SecretSourceKind::kFd, "1"}).ok());
}

TEST_CASE("secret control socket: 0600, and usable under a path longer than sun_path") {
  char tmpl[] = "/tmp/sshim-unit-sock.XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  std::filesystem::path dir = std::string(tmpl) + "/" + std::string(90, 'd');  // a deep state root, a long id
  std::filesystem::create_directories(dir);
  auto path = dir / "control.sock";
  REQUIRE(path.string().size() > 108);
  auto listener = net::ListenSecretControl(path);
  REQUIRE(listener.ok());
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // One request, answered by hand, through the long name.
  std::thread server([&] {
    int c = ::accept(listener->get(), nullptr, nullptr);
    char buf[256];
    std::string got;
    for (ssize_t n; (n = ::read(c, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    std::string answer = got == "rm\nTOK" ? "ok\n" : "error: unexpected " + got + "\n";
    CHECK(::write(c, answer.data(), answer.size()) == static_cast<ssize_t>(answer.size()));
    ::close(c);
  });
  auto s = net::RemoveSecret(path, "TOK");
  server.join();
  CHECK(s.ok());
  std::filesystem::remove_all(tmpl);
}

TEST_CASE("secret book: a context's secret is used only by its context") {
  auto b = Book();
  const std::string ph = "sshim-secret-0123456789abcdef0123456789abcdef";
  net::SecretRuleSpec spec{.name = "GIT", .hosts = {"git.origin.test"}, .header = "", .placeholder = ph, .context = "platform"};
  // Declared over the control socket: a context's only.
  auto plain = spec;
  plain.context.clear();
  CHECK(net::HandleSecretRequest("declare\n" + net::FormatSecretRules({plain}), b).starts_with("error: only a context"));
  REQUIRE(net::HandleSecretRequest("declare\n" + net::FormatSecretRules({spec}), b) == "ok\n");
  CHECK(net::HandleSecretRequest("set\nplatform/GIT\nv-git", b) == "ok\n");
  CHECK(net::HandleSecretRequest("set\nGIT\nx", b).starts_with("error: unknown secret"));
  CHECK(b.Intercepts("git.origin.test", 443));  // every context's requests there are looked at
  // Its context: injected.
  net::HeaderList h{{"Authorization", "token " + ph}};
  auto i = Apply(b, "git.origin.test", 80, "/", h, "platform");
  CHECK_FALSE(i.refused);
  CHECK(i.injected == std::vector<std::string>{"GIT"});
  CHECK(Header(h, "Authorization") == "token v-git");
  // Any other context, the default one, no context: refused, to its host or any other.
  for (std::string_view who : {"user", "default", ""}) {
    for (std::string_view host : {"git.origin.test", "evil.test"}) {
      net::HeaderList o{{"Authorization", "token " + ph}};
      auto r = Apply(b, host, 80, "/", o, who);
      CHECK(r.refused);
      CHECK(r.rule == "secret-context");
      CHECK(Header(o, "Authorization") == "token " + ph);
    }
  }
  // The platform's placeholder to a host that is not the secret's: the usual guard.
  net::HeaderList x{{"X", ph}};
  CHECK(Apply(b, "evil.test", 80, "/", x, "platform").rule == "secret-exfiltration");
  // The session's secrets stay every context's.
  REQUIRE(b.Set("TOK", net::SecretBytes::From("v-tok").value()).ok());
  net::HeaderList s{{"X-Api-Key", kPh2}};
  CHECK(Apply(b, "a.git.test", 443, "/", s, "user").injected == std::vector<std::string>{"TOK"});
  // A template of a context's secret is set only for that context.
  auto templ = spec;
  templ.name = "KEY";
  templ.header = "X-Key: {}";
  templ.placeholder = "sshim-secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  REQUIRE(b.Declare(templ).ok());
  REQUIRE(b.Set("platform/KEY", net::SecretBytes::From("v-key").value()).ok());
  net::HeaderList t1, t2;
  Apply(b, "git.origin.test", 80, "/", t1, "user");
  CHECK(Header(t1, "X-Key") == "<none>");
  Apply(b, "git.origin.test", 80, "/", t2, "platform");
  CHECK(Header(t2, "X-Key") == "v-key");
  // A placeholder cannot be taken over by another declaration.
  auto thief = spec;
  thief.context = "user";
  CHECK_FALSE(b.Declare(thief).ok());
  // Rotation and removal by qualified name; forget drops rules and values.
  CHECK(net::HandleSecretRequest("rm\nplatform/GIT", b) == "ok\n");
  net::HeaderList u{{"Authorization", ph}};
  CHECK(Apply(b, "git.origin.test", 80, "/", u, "platform").rule == "secret-unset");
  CHECK(net::HandleSecretRequest("forget\nplatform", b) == "ok\n");
  net::HeaderList f{{"Authorization", ph}};
  CHECK_FALSE(Apply(b, "git.origin.test", 80, "/", f, "user").refused);  // a stale string now
  CHECK(net::HandleSecretRequest("set\nplatform/GIT\nx", b).starts_with("error: unknown secret"));
  CHECK(net::ParseSecretRules(net::FormatSecretRules({spec})).value().front().context == "platform");
}

TEST_CASE("secret specs: scope and a bare header name") {
  auto s = bundle::ParseSecretSpec("K:host=api.test:8080,path=/v1/,/v2/,method=POST,scheme=http:header=X-Api-Key");
  REQUIRE(s.ok());
  CHECK(s->hosts == std::vector<std::string>{"api.test:8080"});
  CHECK(s->paths == std::vector<std::string>{"/v1/", "/v2/"});
  CHECK(s->methods == std::vector<std::string>{"POST"});
  CHECK(s->schemes == std::vector<std::string>{"http"});
  CHECK(s->header == "X-Api-Key");
  CHECK_FALSE(bundle::ParseSecretSpec("K:host=a.test,path=").ok());
  CHECK_FALSE(bundle::ParseSecretSpec("K:path=/v1/,host=a.test").ok());  // hosts first
}
