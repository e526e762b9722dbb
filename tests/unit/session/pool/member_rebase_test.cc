// A claim's rebase of a member's files (shim/session/pool/member_rebase.h) over the layout's
// own list: every session file that records paths moves with the member, the spec gets the
// claim's env and cwd, and nothing else is touched.
#include <doctest/doctest.h>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/session/pool/member_rebase.h"
#include "shim/session/store/layout.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::session;

TEST_CASE("member rebase: every file the layout says records paths names the session's place, no other") {
  testing::TempDir t;
  auto member = t.path() / "@pool/p/members/m1";
  auto session = t.path() / "@sessions/s1";
  MemberMove move{member.string(), session.string(), "/ws/.member-m1", "/home/u/project"};
  // Each file of the layout, as if it recorded the member's paths (a spec's shape, so the
  // env and cwd have a process to go into).
  std::string doc = R"({"root":{"path":")" + member.string() + R"(/rootfs"},"process":{"cwd":"/","env":["A=1"]},)" +
                    R"("mounts":[{"source":"/ws/.member-m1","destination":"/workspace"}]})";
  for (const auto& e : SessionEntries()) {
    if (e.dir) continue;
    REQUIRE(fs::MkdirAll((member / e).parent_path(), 0700));
    REQUIRE(fs::WriteFileAtomic(member / e, doc, 0600, false));
  }
  REQUIRE(RebaseMemberFiles(member, move, {{"A", "2"}, {"B", "3"}}, "/workspace"));
  int rebased = 0;
  for (const auto& e : SessionEntries()) {
    if (e.dir) continue;
    CAPTURE(e.rel);
    auto text = fs::ReadFile(member / e).value_or("");
    if (e.paths != HostPaths::kRebase) {
      CHECK(text == doc);
      continue;
    }
    ++rebased;
    CHECK(text.find(member.string()) == std::string::npos);
    CHECK(text.find(session.string() + "/rootfs") != std::string::npos);
    CHECK(text.find("/home/u/project") != std::string::npos);
    auto v = bundle::ParseJson(text, "test");
    REQUIRE(v);
    const auto& proc = v->as_object().at("process").as_object();
    bool spec = e.rel == layout::kBundleConfig.rel;
    CHECK(proc.at("cwd").as_string() == (spec ? "/workspace" : "/"));
    CHECK(boost::json::serialize(proc.at("env")) == (spec ? R"(["A=2","B=3"])" : R"(["A=1"])"));
  }
  CHECK(rebased == 3);  // journal, spec, pins
}

TEST_CASE("member rebase: a file a member made before it existed is skipped") {
  testing::TempDir t;
  REQUIRE(fs::WriteFileAtomic(t.path() / layout::kJournal, "[]", 0600, false));
  CHECK(RebaseMemberFiles(t.path(), {t.path().string(), "/x", "/a", "/b"}, {}, ""));
  CHECK(!fs::Exists(t.path() / layout::kSources));
}
