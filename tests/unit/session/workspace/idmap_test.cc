// shim/session/idmap (the pure parts and slot claims) and the session spec it feeds (M11).
#include <doctest/doctest.h>

#include "bundle/session_spec.h"
#include "shim/core/fs.h"
#include "shim/session/workspace/idmap.h"
#include "shim/session/store/record.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;

TEST_CASE("idmap: ranges are disjoint, far from /etc/subuid's and inside 32 bits") {
  CHECK(session::IdBase(0) == 0x10000000u);
  CHECK(session::IdBase(1) - session::IdBase(0) == session::kIdRangeSize);
  CHECK(static_cast<uint64_t>(session::IdBase(session::kIdSlots - 1)) + session::kIdRangeSize <= 0xffffffffull);
}

TEST_CASE("idmap: two claims never share a slot; a freed slot is reused") {
  testing::TempDir t;
  auto a = session::ClaimIdSlot(t.path(), "a");
  auto b = session::ClaimIdSlot(t.path(), "b");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == 0);
  CHECK(*b == 1);
  CHECK(fs::ReadFile(session::IdSlotFile(t.path(), 1)).value_or("") == "b");
  std::filesystem::remove(session::IdSlotFile(t.path(), 0));
  CHECK(*session::ClaimIdSlot(t.path(), "c") == 0);
}

// #13: a create killed between claiming a range and journaling it leaked the range. The
// journal now names {dir, session} before the claim; its undo finds the slot by its content.
TEST_CASE("idmap: a session's slots are released without knowing their number; others stay") {
  testing::TempDir t;
  REQUIRE(session::ClaimIdSlot(t.path(), "a").ok());
  REQUIRE(session::ClaimIdSlot(t.path(), "b").ok());
  REQUIRE(session::ClaimIdSlot(t.path(), "a").ok());  // a second one (never in practice): both go
  REQUIRE(fs::WriteFileAtomic(t.path() / ".claim.a", "a", 0600, false).ok());  // killed mid-claim
  REQUIRE(session::ReleaseIdSlots(t.path(), "a").ok());
  CHECK_FALSE(fs::Exists(session::IdSlotFile(t.path(), 0)));
  CHECK_FALSE(fs::Exists(session::IdSlotFile(t.path(), 2)));
  CHECK_FALSE(fs::Exists(t.path() / ".claim.a"));
  CHECK(fs::ReadFile(session::IdSlotFile(t.path(), 1)).value_or("") == "b");
  CHECK(session::ReleaseIdSlots(t.path(), "a").ok());  // idempotent
  CHECK(*session::ClaimIdSlot(t.path(), "c") == 0);
  CHECK_FALSE(fs::Exists(t.path() / ".claim.c"));  // the claim's own file is gone after a claim
}

TEST_CASE("session spec: with an id base, a user namespace and the idmapped workspace") {
  bundle::SessionProfile p;
  p.rootfs = "/r";
  p.workspace = "/w";
  auto plain = bundle::SessionSpec(p);
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->at("linux").as_object().contains("uidMappings"));
  p.id_base = 0x10010000;
  p.workspace_source = "/s/workspace-id";
  auto spec = bundle::SessionSpec(p);
  REQUIRE(spec.ok());
  const auto& l = spec->at("linux").as_object();
  bool user = false;
  for (const auto& ns : l.at("namespaces").as_array()) user |= ns.as_object().at("type") == "user";
  CHECK(user);
  CHECK(l.at("uidMappings").as_array().at(0).as_object().at("hostID").to_number<uint64_t>() == 0x10010000u);
  CHECK(l.at("gidMappings").as_array().at(0).as_object().at("size") == 65536);
  bool ws = false;
  for (const auto& m : spec->at("mounts").as_array())
    ws |= m.as_object().at("destination") == "/workspace" && m.as_object().at("source") == "/s/workspace-id";
  CHECK(ws);
  // The record names the real workspace; the annotation too.
  CHECK(spec->at("annotations").as_object().at("dev.sandshim.session.workspace") == "/w");
}

TEST_CASE("session record: id_base survives a round trip") {
  session::SessionRecord r;
  r.id = "x";
  r.id_base = 0x10020000;
  auto back = session::RecordFromJson(session::RecordToJson(r));
  REQUIRE(back.ok());
  CHECK(back->id_base == 0x10020000u);
}
