// The session journal's typed steps (shim/session/session_steps.h): a journal the previous
// sandshim wrote (kind strings + JSON objects) loads as the same steps, so its sessions still
// delete.
#include <doctest/doctest.h>

#include "shim/core/fs.h"
#include "shim/session/store/session_steps.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::session;

TEST_CASE("session journal: a journal in the old format loads, every kind a session wrote") {
  testing::TempDir d;
  // As a proxy-mode, idmapped, named session with a context wrote it before issue #16, plus an
  // idrange entry of the older form (a slot file by path).
  const char* old = R"([{"kind":"session-name","data":{"path":"/r/@sessions/@names/n","id":"s1"}},)"
                    R"({"kind":"session-idrange","data":{"dir":"/r/@idranges","session":"s1"}},)"
                    R"({"kind":"session-idrange","data":{"path":"/r/@idranges/7"}},)"
                    R"({"kind":"session-layer","data":{"path":"/r/@sessions/s1/base-id"}},)"
                    R"({"kind":"netns","data":{"path":"/r/@sessions/s1/netns"}},)"
                    R"({"kind":"egress-relay","data":{"pid_file":"/r/@sessions/s1/relay.pid"}},)"
                    R"({"kind":"session-container","data":{"id":"sess-s1"}},)"
                    R"({"kind":"session-context","data":{"id":"sess-s1-c-a","dir":"/r/@sessions/s1/contexts/a",)"
                    R"("name":"a","egress":"/r/@sessions/s1/contexts.json","network":true,"secrets":"/r/s.sock"}},)"
                    R"({"kind":"session-context","data":{"id":"sess-s1-c-b","dir":"/r/@sessions/s1/contexts/b","name":"b"}}])";
  REQUIRE(fs::WriteFileAtomic(d.path() / "journal.json", old, 0600).ok());
  auto j = SessionJournal::Load(d.path() / "journal.json");
  REQUIRE(j.ok());
  const auto& e = j->entries();
  REQUIRE(e.size() == 9);
  CHECK(std::get<step::SessionName>(e[0]).id == "s1");
  CHECK(std::get<step::SessionIdRange>(e[1]).dir == "/r/@idranges");
  CHECK(std::get<step::SessionIdRange>(e[1]).path.empty());
  CHECK(std::get<step::SessionIdRange>(e[2]).path == "/r/@idranges/7");
  CHECK(std::get<step::SessionLayer>(e[3]).path == "/r/@sessions/s1/base-id");
  CHECK(std::get<step::Netns>(e[4]).path == "/r/@sessions/s1/netns");
  CHECK(std::get<step::EgressRelay>(e[5]).pid_file == "/r/@sessions/s1/relay.pid");
  CHECK(std::get<step::SessionContainer>(e[6]).id == "sess-s1");
  const auto& a = std::get<step::SessionContext>(e[7]);
  CHECK(a.network);
  CHECK(a.secrets == "/r/s.sock");
  const auto& b = std::get<step::SessionContext>(e[8]);
  CHECK_FALSE(b.network);
  CHECK(b.egress.empty());
  std::vector<std::string> kinds;
  for (const auto& s : e) kinds.emplace_back(runtime::KindOf(s));
  CHECK(kinds == std::vector<std::string>{"session-name", "session-idrange", "session-idrange", "session-layer", "netns",
                                          "egress-relay", "session-container", "session-context", "session-context"});
}

TEST_CASE("session journal: a container step is not a session step; a mistyped member names itself") {
  testing::TempDir d;
  REQUIRE(fs::WriteFileAtomic(d.path() / "j.json", R"([{"kind":"runsc-container","data":{"id":"x"}}])", 0600).ok());
  auto j = SessionJournal::Load(d.path() / "j.json");
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().msg.find("unknown journal step \"runsc-container\"") != std::string::npos);
  REQUIRE(fs::WriteFileAtomic(d.path() / "k.json", R"([{"kind":"session-context","data":{"id":"x","network":"yes"}}])", 0600).ok());
  auto k = SessionJournal::Load(d.path() / "k.json");
  REQUIRE_FALSE(k.ok());
  CHECK(k.error().msg.find("[0].data.network") != std::string::npos);
}

TEST_CASE("session journal: a paused session's snapshot directory round-trips as its own kind") {
  testing::TempDir d;
  SessionJournal j(d.path() / "journal.json");
  REQUIRE(j.Append(step::SessionContainer{"sess-s1"}).ok());
  REQUIRE(j.Append(step::SessionSnapshot{"/r/@sessions/s1/snapshot"}).ok());
  REQUIRE(fs::ReadFile(d.path() / "journal.json").value_or("").find(R"("kind":"session-snapshot")") != std::string::npos);
  auto back = SessionJournal::Load(d.path() / "journal.json");
  REQUIRE(back.ok());
  REQUIRE(back->entries().size() == 2);
  CHECK(std::get<step::SessionSnapshot>(back->entries()[1]).path == "/r/@sessions/s1/snapshot");
}
