// Pool::Claim's member hand-over as a step list (pool_claim.cc), driven in-process as any user:
// a member made as MakeMember makes one (a session in the pool's members store, its marker),
// over the fake runsc, the host effects through the recording Sys (host_fixture.h). Asserted:
// the steps' order, the renames before the workspace guard, Sessions writing the name link
// and the record (Adopt), and a failing mount turning the claim into a miss with the member
// undone.
#include <doctest/doctest.h>

#include "shim/session/pool/pool.h"
#include "shim/session/sessions.h"
#include "tests/unit/session/host_fixture.h"

using namespace sandshim;

namespace {

struct PoolFixture : testing::HostFixture {
  session::PoolPaths paths{root, "p"};
  session::PoolDef def;
  std::string member = "m-1";

  // A ready member (not shared: its workspace is renamed at the claim, never bound).
  void MakeMember() {
    def = session::Pool::Define(Options(), "p", R"({"size": 1, "profile": {"network": "none"}})").value();
    auto ws = session::MemberWorkspace(def, member);
    REQUIRE(fs::MkdirAll(ws, 0755).ok());
    auto p = Profile();
    p.workspace = ws.string();
    session::Sessions members(Options(), paths.members);
    auto made = members.Create(member, "", p);
    REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().msg));
    boost::json::object marker{{"pool", "p"}, {"generation", def.generation}, {"workspace", ws.string()}};
    REQUIRE(fs::WriteFileAtomic(paths.members / member / "pool-member.json", boost::json::serialize(marker), 0600).ok());
    sys.calls.clear();
  }
};

}  // namespace

TEST_CASE("pool claim: the member renamed, guarded, then adopted by Sessions (name link, record), as any user") {
  PoolFixture f;
  f.MakeMember();
  session::Pool pool(f.Options(), "p");
  std::vector<std::string> trace;
  pool.TraceClaim(&trace);
  auto out = pool.Claim({.id = "s1", .name = "one"});
  REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().msg));
  REQUIRE_MESSAGE(out->session.has_value(), out->miss.reason);
  CHECK(trace == std::vector<std::string>{"member", "release-egress", "rebase", "move", "workspace-guard",
                                          "shared-workspace", "bind", "adopt", "tidy"});
  auto from = f.paths.members / "m-1", to = f.root / "@sessions" / "s1";
  auto ws_from = session::MemberWorkspace(f.def, "m-1"), ws_to = f.paths.default_workspaces / "s1";
  auto link = f.root / "@sessions" / "@names" / "one";
  auto effects = f.sys.Calls({"rename", "open_tree", "move_mount", "symlink"});
  REQUIRE(effects.size() == 6);
  CHECK(effects[0] == "rename " + (from / "session.json").string() + " " + (from / "member-record.json").string());
  CHECK(effects[1] == "rename " + ws_from.string() + " " + ws_to.string() + " noreplace");
  CHECK(effects[2] == "rename " + from.string() + " " + to.string() + " noreplace");
  CHECK(effects[3] == "open_tree " + ws_to.string());
  CHECK(effects[4] == "move_mount tree:" + ws_to.string() + " " + ws_to.string());
  CHECK(effects[5] == "symlink " + link.string() + " -> s1");
  // Sessions' record: the claimed session, found by its name.
  session::Sessions sessions(f.Options());
  auto got = sessions.Get("one");
  REQUIRE_MESSAGE(got.ok(), (got.ok() ? "" : got.error().msg));
  CHECK(got->id == "s1");
  CHECK(got->workspace == ws_to.string());
  CHECK(got->profile.at("pool_member") == "m-1");
  auto kinds = f.JournalKinds("s1");
  REQUIRE(kinds.size() >= 2);
  CHECK(kinds[kinds.size() - 2] == "workspace-guard");
  CHECK(kinds.back() == "session-name");
  CHECK_FALSE(fs::Exists(to / "member-record.json"));
  CHECK_FALSE(fs::Exists(f.paths.claims / "m-1.json"));
  REQUIRE(sessions.Delete("one").ok());
}

TEST_CASE("pool claim: a failing mount is a miss; the member is undone and nothing of the session is left") {
  PoolFixture f;
  f.MakeMember();
  f.sys.FailOn("move_mount", EPERM);
  session::Pool pool(f.Options(), "p");
  std::vector<std::string> trace;
  pool.TraceClaim(&trace);
  auto out = pool.Claim({.id = "s2", .name = "two"});
  REQUIRE(out.ok());
  CHECK_FALSE(out->session.has_value());
  CHECK(out->miss.reason.find("claim of member m-1 failed: attach the nosuid workspace at ") == 0);
  CHECK(trace.back() == "workspace-guard");
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "s2"));
  CHECK_FALSE(fs::Exists(f.paths.members / "m-1"));
  CHECK_FALSE(fs::Exists(f.root / "@sessions" / "@names" / "two"));
  CHECK_FALSE(fs::Exists(f.paths.claims / "m-1.json"));
  CHECK_FALSE(fs::Exists(f.paths.default_workspaces / "s2"));
  CHECK(f.sys.IndexOf("symlink") < 0);  // never named
}
