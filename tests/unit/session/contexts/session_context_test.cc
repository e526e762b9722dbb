// Credential contexts: the context's spec derived from the session's (pure), names and
// container ids, the record's strict reading, and where an exec goes.
#include <doctest/doctest.h>

#include <filesystem>

#include "bundle/session_spec.h"
#include <boost/beast/core/detail/base64.hpp>

#include "shim/core/fs.h"
#include "shim/net/context_egress.h"
#include "shim/session/egress/context_egress_file.h"
#include "shim/session/contexts/context_record.h"
#include "shim/session/contexts/context_spec.h"
#include "shim/session/contexts/contexts.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

json::object SessionDoc() {
  bundle::SessionProfile p;
  p.rootfs = "/rootfs";
  p.workspace = "/ws";
  p.env = {{"SHARED", "1"}, {"OVERRIDE", "session"}};
  p.network = "proxy";
  p.netns_path = "/run/x/netns";
  return bundle::SessionSpec(p).value();
}

std::vector<std::string> Env(const json::object& spec) {
  std::vector<std::string> out;
  for (const auto& v : spec.at("process").at("env").as_array()) out.emplace_back(v.as_string());
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("context names: no '+', no path parts, not empty") {
  CHECK(ValidateContextName("platform"));
  CHECK(ValidateContextName("a_b-c.1"));
  CHECK_FALSE(ValidateContextName(""));
  CHECK_FALSE(ValidateContextName("a+b"));
  CHECK_FALSE(ValidateContextName("../x"));
  CHECK_FALSE(ValidateContextName(".."));
  CHECK_FALSE(ValidateContextName(std::string(65, 'a')));
  // '+' separates name and session: two different pairs never give one id.
  CHECK(ContextContainerId("b.c", "a") != ContextContainerId("c", "a.b"));
  CHECK(ContextContainerId("s1", "platform") == "ctx-platform+s1");
}

TEST_CASE("gVisor context spec: joins the session's sandbox, own env and user, the session's mounts") {
  ContextOptions o{.name = "platform", .env = {{"TOKEN", "t"}, {"OVERRIDE", "ctx"}}, .uid = 2000};
  auto spec = ContextSpec(SessionDoc(), o, {.in_session_sandbox = true, .session_container = "sess-s1"}).value();
  auto& a = spec.at("annotations").as_object();
  CHECK(a.at("io.kubernetes.cri.container-type") == "container");
  CHECK(a.at("io.kubernetes.cri.sandbox-id") == "sess-s1");
  CHECK(a.at("dev.sandshim.session.context") == "platform");
  auto env = Env(spec);
  CHECK(Has(env, "TOKEN=t"));
  CHECK(Has(env, "OVERRIDE=ctx"));
  CHECK_FALSE(Has(env, "OVERRIDE=session"));  // replaced in place, not duplicated
  CHECK(Has(env, "SHARED=1"));
  CHECK(spec.at("process").at("user").at("uid") == 2000);
  CHECK(spec.at("process").at("user").at("gid") == 2000);
  // The workspace and /tmp are in the spec: each container mounts its own /tmp.
  int tmp = 0, ws = 0;
  for (const auto& m : spec.at("mounts").as_array()) {
    tmp += m.at("destination") == "/tmp" && m.at("type") == "tmpfs";
    ws += m.at("destination") == "/workspace" && m.at("source") == "/ws";
  }
  CHECK(tmp == 1);
  CHECK(ws == 1);
  CHECK_FALSE(spec.at("linux").as_object().contains("cgroupsPath"));
}

TEST_CASE("gVisor context spec with a broker: root init with its own capabilities, the helper bound read-only") {
  ContextOptions o{.name = "platform", .uid = 2000};
  auto doc = SessionDoc();
  CHECK(BrokerNetwork(doc));
  auto spec = ContextSpec(doc, o,
                          {.in_session_sandbox = true, .session_container = "sess-s1", .broker_path = "/run/s/sandshim-ctx-1",
                           .forward = "3128=10.200.0.1:3128"})
                  .value();
  CHECK(HasBroker(spec));
  auto& process = spec.at("process").as_object();
  CHECK(process.at("user").at("uid") == 0);
  CHECK(BrokerExecUser(spec) == "2000:2000");
  auto& args = process.at("args").as_array();
  CHECK(args.at(0) == "/.sshim/ctx");
  CHECK(args.at(1) == "init");
  CHECK(args.back() == "3128=10.200.0.1:3128");
  bool bound = false;
  for (const auto& m : spec.at("mounts").as_array())
    if (m.at("destination") == "/.sshim/ctx") {
      bound = m.at("source") == "/run/s/sandshim-ctx-1";
      auto& opts = m.at("options").as_array();
      CHECK(std::find(opts.begin(), opts.end(), json::value("ro")) != opts.end());
    }
  CHECK(bound);
  // The init's capabilities the session's spec did not give: recorded, in its args as a mask.
  std::string only(spec.at("annotations").at("dev.sandshim.context.init-only-caps").as_string());
  CHECK(only.find("CAP_SYS_ADMIN") != std::string::npos);
  // One seccomp rule more: unshare(CLONE_NEWNET) only.
  auto& rules = spec.at("linux").at("seccomp").at("syscalls").as_array();
  CHECK(rules.back().at("names").at(0) == "unshare");
  CHECK(rules.back().at("args").at(0).at("value") == (0x40000000 | 0x08000000));  // CLONE_NEWNET | CLONE_NEWIPC

  SUBCASE("an exec through it: the client as root, told the user, without the init's capabilities") {
    json::object p{{"args", json::array{"sh", "-c", "x"}},
                   {"cwd", "/workspace"},
                   {"user", json::object{{"uid", 2000}, {"gid", 2000}, {"additionalGids", json::array{5, 6}}}},
                   {"capabilities", process.at("capabilities")}};
    auto w = ThroughBroker(p, spec, {}).value();
    std::vector<std::string> got;
    for (const auto& a : w.at("args").as_array()) got.emplace_back(a.as_string());
    CHECK(got == std::vector<std::string>{"/.sshim/ctx", "run", "--uid", "2000", "--gid", "2000", "--groups", "5,6",
                                          "--cwd", "/workspace", "--", "sh", "-c", "x"});
    CHECK(w.at("user").at("uid") == 0);
    CHECK(w.at("cwd") == "/");
    for (const auto& [set, list] : w.at("capabilities").as_object())
      CHECK(std::find(list.as_array().begin(), list.as_array().end(), json::value("CAP_SYS_ADMIN")) == list.as_array().end());
    auto added = ThroughBroker(p, spec, {"CAP_SYS_ADMIN"}).value();  // an exec that asks for it keeps it
    auto& b = added.at("capabilities").at("bounding").as_array();
    CHECK(std::find(b.begin(), b.end(), json::value("CAP_SYS_ADMIN")) != b.end());
    p["user"].as_object()["uid"] = -1;
    CHECK_FALSE(ThroughBroker(p, spec, {}));  // strict: never uid 0 by accident
  }
  SUBCASE("a context whose spec binds the exec client runs it (no libc: a cheap start)") {
    auto with_run = ContextSpec(doc, o,
                                {.in_session_sandbox = true, .session_container = "sess-s1", .broker_path = "/run/s/sandshim-ctx-1",
                                 .run_path = "/run/s/sandshim-ctx-run-1", .forward = "3128=10.200.0.1:3128"})
                        .value();
    bool bound = false;
    for (const auto& m : with_run.at("mounts").as_array())
      if (m.at("destination") == "/.sshim/run") bound = m.at("source") == "/run/s/sandshim-ctx-run-1";
    CHECK(bound);
    json::object p{{"user", {{"uid", 2000}, {"gid", 2000}}}, {"args", {"true"}}, {"cwd", "/"}};
    auto w = ThroughBroker(p, with_run, {}).value();
    std::vector<std::string> got;
    for (const auto& a : w.at("args").as_array()) got.emplace_back(a.as_string());
    CHECK(got == std::vector<std::string>{"/.sshim/run", "--uid", "2000", "--gid", "2000", "--cwd", "/", "--", "true"});
    // A client not of this sandshim's own gets neither flag (it would refuse what it does not
    // know); the own client's flags are checked end to end (attack_contexts, client SIGKILLed).
    CHECK_FALSE(OwnRunClient(with_run));
    CHECK(ThroughBroker(p, with_run, {}, true, 4).value().at("args").as_array().size() == got.size());
  }
}

TEST_CASE("broker network: netstack sessions only") {
  auto doc = SessionDoc();
  doc["annotations"].as_object()[bundle::kNetworkStackAnnotation] = "hostinet";
  CHECK_FALSE(BrokerNetwork(doc));
  bundle::SessionProfile host;
  host.rootfs = "/rootfs";
  host.workspace = "/ws";
  host.network = "host";
  CHECK_FALSE(BrokerNetwork(bundle::SessionSpec(host).value()));
  host.network = "none";
  CHECK(BrokerNetwork(bundle::SessionSpec(host).value()));
  auto plain = ContextSpec(SessionDoc(), {.name = "p"}, {.in_session_sandbox = true, .session_container = "s"}).value();
  CHECK_FALSE(HasBroker(plain));
  CHECK(BrokerExecUser(plain).empty());
}

TEST_CASE("native context spec: the session's network namespace by path, a pid namespace of its own") {
  auto spec = ContextSpec(SessionDoc(), {.name = "p"}, {.netns_path = "/proc/42/ns/net"}).value();
  bool pid = false;
  int net = 0;
  for (const auto& ns : spec.at("linux").at("namespaces").as_array()) {
    if (ns.at("type") == "pid") pid = !ns.as_object().contains("path");
    if (ns.at("type") == "network") {
      ++net;
      CHECK(ns.at("path") == "/proc/42/ns/net");
    }
  }
  CHECK(pid);
  CHECK(net == 1);
  CHECK_FALSE(spec.at("annotations").as_object().contains("io.kubernetes.cri.container-type"));
  CHECK_FALSE(ContextSpec(SessionDoc(), {.name = "a+b"}, {}));
}

TEST_CASE("context record: round trip, strict types") {
  ContextRecord r{.name = "p", .container_id = "ctx-p+s", .created = "t", .uid = 2000, .gid = 2000, .env_keys = {"K"}};
  auto back = ContextFromJson(ContextToJson(r)).value();
  CHECK(back.name == "p");
  CHECK(back.uid == 2000);
  CHECK(back.env_keys == std::vector<std::string>{"K"});
  CHECK_FALSE(ContextFromJson(json::object{{"name", "p"}, {"container_id", "c"}, {"uid", "x"}}));
  CHECK_FALSE(ContextFromJson(json::object{{"name", "p"}}));
}

TEST_CASE("exec target: default is the session's container until a default context exists") {
  auto dir = std::filesystem::temp_directory_path() / ("ctx-target-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  SessionRecord s;
  s.id = "s1";
  s.container_id = "sess-s1";
  auto t = ExecTargetFor(dir, s, "").value();
  CHECK(t.container_id == "sess-s1");
  CHECK(t.bundle == dir / "bundle");
  CHECK(ExecTargetFor(dir, s, "nope").error().err_no == ENOENT);
  CHECK_FALSE(ExecTargetFor(dir, s, "../x"));
  std::filesystem::create_directories(dir / "contexts" / "default");
  REQUIRE(fs::WriteFileAtomic(dir / "contexts" / "default" / "context.json",
                              R"({"name":"default","container_id":"ctx-default+s1","created":"t"})", 0600));
  t = ExecTargetFor(dir, s, "").value();
  CHECK(t.container_id == "ctx-default+s1");
  CHECK(t.bundle == dir / "contexts" / "default" / "bundle");
  // A context made from a spare: its container is the one its record names, not ctx-<name>+<session>.
  std::filesystem::create_directories(dir / "contexts" / "p");
  REQUIRE(fs::WriteFileAtomic(dir / "contexts" / "p" / "context.json",
                              R"({"name":"p","container_id":"spare-0123456789ab+s1","created":"t"})", 0600));
  CHECK(ExecTargetFor(dir, s, "p").value().container_id == "spare-0123456789ab+s1");
  // A record that cannot be read is an error, never the session's container.
  REQUIRE(fs::WriteFileAtomic(dir / "contexts" / "default" / "context.json", "{}", 0600));
  CHECK(ExecTargetFor(dir, s, "").error().err_no == EIO);
  std::filesystem::remove_all(dir);
}

TEST_CASE("context container spec (cold and spare alike): the sandbox's, bound to no context") {
  auto session = SessionDoc();
  auto bound = ContextSpec(session, {.name = "platform", .env = {{"TOKEN", "t"}}, .uid = 2000},
                           {.in_session_sandbox = true, .session_container = "sess-s1"}, {{"HTTP_PROXY", "http://ctx-platform:x@h:1"}})
                   .value();
  auto c = ContextContainerSpec(session, {.in_session_sandbox = true, .session_container = "sess-s1"}).value();
  auto& a = c.at("annotations").as_object();
  CHECK(a.at("io.kubernetes.cri.sandbox-id") == "sess-s1");
  CHECK(a.at("io.kubernetes.cri.container-type") == "container");
  CHECK_FALSE(a.contains("dev.sandshim.session.context"));
  // Nothing of a context's own: its env, user and proxy credentials are its execs' (its bundle).
  CHECK(Env(c) == Env(session));
  CHECK_FALSE(Has(Env(c), "TOKEN=t"));
  CHECK(c.at("process").at("user") == session.at("process").at("user"));
  // Everything else as the context's own spec: the same mounts, namespaces, root, process args.
  CHECK(c.at("mounts") == bound.at("mounts"));
  CHECK(c.at("linux") == bound.at("linux"));
  CHECK(c.at("root") == bound.at("root"));
  CHECK(c.at("process").at("args") == bound.at("process").at("args"));
}

}  // namespace sandshim::session

namespace sandshim::net {

TEST_CASE("proxy Basic credentials: padding, shape") {
  // "ctx-p:t" -> Y3R4LXA6dA== (two padding characters).
  auto c = ParseProxyBasic("Basic Y3R4LXA6dA==");
  REQUIRE(c);
  CHECK(c->first == "ctx-p");
  CHECK(c->second == "t");
  CHECK(ParseProxyBasic("Basic Y3R4LXA6dDE=")->second == "t1");  // one padding character
  CHECK_FALSE(ParseProxyBasic("Bearer Y3R4LXA6dA=="));
  CHECK_FALSE(ParseProxyBasic("Basic !!!!"));
  CHECK_FALSE(ParseProxyBasic("Basic bm9jb2xvbg=="));  // "nocolon"
}

TEST_CASE("contexts file: entries, rules, strictness") {
  auto t = ParseContextEgress(R"({"contexts":[{"name":"p","token":"0123456789abcdef0","allow_domains":["a.test"]},
                                              {"name":"q","token":"0123456789abcdef1"}]})");
  REQUIRE(t);
  CHECK(t->at("p").rules->Decide("a.test", 80).allowed);
  CHECK_FALSE(t->at("p").rules->Decide("b.test", 80).allowed);
  CHECK_FALSE(t->at("q").rules);  // the session's
  CHECK(ParseContextEgress("")->empty());
  CHECK_FALSE(ParseContextEgress(R"({"contexts":[{"name":"p","token":"short"}]})"));
  CHECK_FALSE(ParseContextEgress(R"({"contexts":[{"name":"p","token":"0123456789abcdef0","allow_domains":"x"}]})"));
  CHECK_FALSE(ParseContextEgress("[]"));
}

TEST_CASE("context egress: identify by token, re-read when the file changes") {
  auto file = std::filesystem::temp_directory_path() / ("ctx-egress-" + std::to_string(::getpid()) + ".json");
  REQUIRE(fs::WriteFileAtomic(file, "", 0600));
  auto egress = ContextEgress::Open(file.string()).value();
  CHECK(egress->Identify("")->context == "default");
  auto tok = session::NewContextToken().value();
  CHECK(tok.size() == 64);
  REQUIRE(session::AddContextEgress(file, "p", tok, {"a.test"}, {}));
  auto user = session::ContextProxyEnv("p", tok, "127.0.0.1", 3128).at("HTTP_PROXY");
  CHECK(user == "http://ctx-p:" + tok + "@127.0.0.1:3128");
  auto header = [](const std::string& creds) {
    std::string out(boost::beast::detail::base64::encoded_size(creds.size()), '\0');
    out.resize(boost::beast::detail::base64::encode(out.data(), creds.data(), creds.size()));
    return "Basic " + out;
  };
  auto who = egress->Identify(header("ctx-p:" + tok));
  REQUIRE(who);
  CHECK(who->context == "p");
  CHECK(who->rules);
  CHECK_FALSE(egress->Identify(header("ctx-p:" + tok.substr(1) + "0")));
  CHECK_FALSE(egress->Identify(header("ctx-q:" + tok)));
  REQUIRE(session::RemoveContextEgress(file, "p"));
  CHECK_FALSE(egress->Identify(header("ctx-p:" + tok)));  // its credentials stop working
  CHECK(session::RemoveContextEgress(file, "p"));           // idempotent
  std::filesystem::remove(file);
}

TEST_CASE("context egress: path keys name contexts; the default context has a path and no token") {
  auto file = std::filesystem::temp_directory_path() / ("ctx-paths-" + std::to_string(::getpid()) + ".json");
  REQUIRE(fs::WriteFileAtomic(file, "", 0600));
  auto egress = ContextEgress::Open(file.string()).value();
  auto tok = session::NewContextToken().value(), path_p = session::NewContextToken().value(),
       path_d = session::NewContextToken().value();
  REQUIRE(session::AddContextEgress(file, "p", tok, {}, {}, path_p));
  REQUIRE(session::AddContextEgress(file, "default", "", {}, {}, path_d));
  CHECK(egress->ContextOfPath(path_p) == "p");
  CHECK(egress->ContextOfPath(path_d) == "default");
  CHECK_FALSE(egress->ContextOfPath(path_p.substr(1) + "0"));
  CHECK_FALSE(egress->ContextOfPath(""));
  // No credentials name the default context, an empty password included.
  std::string empty = "ctx-default:";
  std::string b64(boost::beast::detail::base64::encoded_size(empty.size()), '\0');
  b64.resize(boost::beast::detail::base64::encode(b64.data(), empty.data(), empty.size()));
  CHECK_FALSE(egress->Identify("Basic " + b64));
  REQUIRE(session::RemoveContextEgress(file, "p"));
  CHECK_FALSE(egress->ContextOfPath(path_p));  // a removed context's path names nothing
  CHECK_FALSE(ParseContextEgress(R"({"contexts":[{"name":"p"}]})"));                // neither
  CHECK_FALSE(ParseContextEgress(R"({"contexts":[{"name":"p","path":"short"}]})"));  // too short
  CHECK(ParseContextEgress(R"({"contexts":[{"name":"d","path":"0123456789abcdef0"}]})"));
  std::filesystem::remove(file);
}

}  // namespace sandshim::net
