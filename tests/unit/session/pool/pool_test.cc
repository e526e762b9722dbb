// Warm pools, the pure parts: the pool file and the path rebasing a claim applies.
#include <doctest/doctest.h>

#include "bundle/json_rebase.h"
#include "shim/session/pool/pool_def.h"
#include "shim/session/pool/pool.h"
#include "shim/session/pool/pool_stats.h"
#include "shim/core/fs.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim::session;
namespace json = boost::json;

TEST_CASE("pool file: size, low water default, profile, generation") {
  auto d = ParsePoolDef("py", R"({"size": 4, "profile": {"image": "busybox"}})", "/r/@pool/py/workspaces");
  REQUIRE(d);
  CHECK(d->size == 4);
  CHECK(d->low_water == 4);
  CHECK(d->workspace_parent == "/r/@pool/py/workspaces");
  CHECK(d->profile.at("image").as_string() == "busybox");
  CHECK(d->generation.size() == 64);
  auto e = ParsePoolDef("py", R"({"size": 4, "profile": {"image": "busybox", "memory": "1g"}})", "/w");
  REQUIRE(e);
  CHECK(e->generation != d->generation);  // a changed profile retires the old members
  CHECK(MemberWorkspace(*d, "m-1").string() == "/r/@pool/py/workspaces/.member-m-1");
}

TEST_CASE("pool file: bad input is one clear error") {
  auto err = [](const char* text) {
    auto d = ParsePoolDef("p", text, "/w");
    REQUIRE(!d);
    return d.error().msg;
  };
  CHECK(err("[]") == "pool file: not a JSON object");
  CHECK(err(R"({"size": 0, "profile": {}})") == "pool file: size: must be at least 1");
  CHECK(err(R"({"size": 2, "low_water": 3, "profile": {}})") == "pool file: low_water: must not exceed size");
  CHECK(err(R"({"size": 2, "sise": 3, "profile": {}})") == "pool file: unknown key \"sise\"");
  CHECK(err(R"({"size": 2})") == "pool file: profile: must be an object");
  CHECK(err(R"({"size": 2, "profile": {}, "workspace_parent": "rel"})") ==
        "pool file: workspace_parent: must be an absolute path");
  CHECK(err(R"({"size": 2, "profile": {"workspace": "/x"}})") ==
        "pool file: profile: workspace: the pool makes each member's own");
  CHECK(err(R"({"size": -1, "profile": {}})") == "pool file: size: must be a number from 0 to 1000");
}

TEST_CASE("pool file: from_snapshot names a snapshot (#35), and PoolUsingSnapshot finds the pool") {
  auto d = ParsePoolDef("p", R"({"size": 2, "profile": {}, "from_snapshot": "warm-py"})", "/w");
  REQUIRE(d);
  CHECK(d->from_snapshot == "warm-py");
  CHECK(ParsePoolDef("p", R"({"size": 2, "profile": {}})", "/w")->from_snapshot.empty());
  auto bad = ParsePoolDef("p", R"({"size": 2, "profile": {}, "from_snapshot": 3})", "/w");
  REQUIRE(!bad);
  CHECK(bad.error().msg == "pool file: from_snapshot: must be a snapshot name");
  auto dots = ParsePoolDef("p", R"({"size": 2, "profile": {}, "from_snapshot": "../x"})", "/w");
  REQUIRE(!dots);
  CHECK(dots.error().msg.starts_with("pool file: from_snapshot: "));
  sandshim::testing::TempDir root;
  PoolPaths a(root.path(), "a"), b(root.path(), "b");
  REQUIRE(sandshim::fs::MkdirAll(a.dir, 0700));
  REQUIRE(sandshim::fs::MkdirAll(b.dir, 0700));
  REQUIRE(sandshim::fs::WriteFileAtomic(a.def, R"({"size": 1, "profile": {}})", 0600));
  REQUIRE(sandshim::fs::WriteFileAtomic(b.def, R"({"size": 1, "profile": {}, "from_snapshot": "warm"})", 0600));
  CHECK(PoolUsingSnapshot(root.path(), "warm") == "b");
  CHECK(PoolUsingSnapshot(root.path(), "cold").empty());
}

TEST_CASE("rebase: whole strings and path prefixes, never a sibling with the same prefix") {
  json::value v = json::parse(R"({"kind": "netns", "data": {"path": "/r/@pool/p/members/m-1/netns",
      "id": "sess-m-1", "list": ["/r/@pool/p/members/m-1", "/r/@pool/p/members/m-10/x", "x/r/@pool/p/members/m-1"]}})");
  CHECK(sandshim::bundle::RebasePaths(v, "/r/@pool/p/members/m-1", "/r/@sessions/s") == 2);
  CHECK(v.at("data").at("path").as_string() == "/r/@sessions/s/netns");
  CHECK(v.at("data").at("id").as_string() == "sess-m-1");  // an id, not a path
  CHECK(v.at("data").at("list").at(0).as_string() == "/r/@sessions/s");
  CHECK(v.at("data").at("list").at(1).as_string() == "/r/@pool/p/members/m-10/x");
  CHECK(v.at("data").at("list").at(2).as_string() == "x/r/@pool/p/members/m-1");
  CHECK(sandshim::bundle::RebasePaths(v, "", "/x") == 0);
}

TEST_CASE("pool metrics: one family per counter, a sample per pool") {
  PoolSample s{"py", 10, 7, {}};
  s.stats.claims = 3;
  s.stats.misses = 1;
  auto text = PoolPrometheusText({s});
  CHECK(text.find("sandshim_pool_ready{pool=\"py\"} 7\n") != std::string::npos);
  CHECK(text.find("sandshim_pool_claims_total{pool=\"py\"} 3\n") != std::string::npos);
  CHECK(text.find("sandshim_pool_misses_total{pool=\"py\"} 1\n") != std::string::npos);
  CHECK(text.find("# TYPE sandshim_pool_size gauge") != std::string::npos);
}

// Issue #16 item 7: RecoverClaim decided "committed" by a substring search for "id":"<id>" in
// session.json, which a record of another session holding that text anywhere also matched.
TEST_CASE("pool claim recovery: session.json read as a session record, not searched") {
  sandshim::testing::TempDir d;
  CHECK_FALSE(*ClaimCommitted(d.path(), "s1"));  // no record: not committed
  SessionRecord r;
  r.id = "s1";
  r.container_id = "sess-s1";
  REQUIRE(sandshim::fs::WriteFileAtomic(d.path() / "session.json", json::serialize(RecordToJson(r)), 0600).ok());
  CHECK(*ClaimCommitted(d.path(), "s1"));
  // Positive control for the old search: this record holds the text "id":"s2" (in its profile
  // summary), yet it is session s1's.
  r.profile["parent"] = json::object{{"id", "s2"}};
  auto text = json::serialize(RecordToJson(r));
  REQUIRE(text.find(R"("id":"s2")") != std::string::npos);
  REQUIRE(sandshim::fs::WriteFileAtomic(d.path() / "session.json", text, 0600).ok());
  CHECK_FALSE(*ClaimCommitted(d.path(), "s2"));
  // A mistyped record is an error naming the field, not "not committed" (which would tear down).
  REQUIRE(sandshim::fs::WriteFileAtomic(d.path() / "session.json", R"({"id":7})", 0600).ok());
  auto bad = ClaimCommitted(d.path(), "s1");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("id") != std::string::npos);
}
