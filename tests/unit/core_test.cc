#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/signals.h"
#include "test_helpers.h"

using namespace sandshim;

TEST_CASE("ids: runc's rule, no path tricks") {
  CHECK(ValidateId("abc-DEF_1.2+x").ok());
  CHECK_FALSE(ValidateId("").ok());
  CHECK_FALSE(ValidateId(".").ok());
  CHECK_FALSE(ValidateId("..").ok());
  CHECK_FALSE(ValidateId("a/b").ok());
  CHECK_FALSE(ValidateId("../etc").ok());
  CHECK_FALSE(ValidateId("a b").ok());
  CHECK_FALSE(ValidateId("a@runsc").ok());
  CHECK_FALSE(ValidateId(std::string(1025, 'a')).ok());
  CHECK(ValidateId(std::string(1024, 'a')).ok());
}

TEST_CASE("ids: a made-up id is valid, prefixed, and fresh each time") {
  auto a = NewId("s-"), b = NewId("s-");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->rfind("s-", 0) == 0);
  CHECK(a->size() == 14);
  CHECK(ValidateId(*a).ok());
  CHECK(*a != *b);
}

TEST_CASE("signals: names, SIG prefix, case, numbers") {
  CHECK(*ParseSignal("TERM") == SIGTERM);
  CHECK(*ParseSignal("SIGKILL") == SIGKILL);
  CHECK(*ParseSignal("sigusr1") == SIGUSR1);
  CHECK(*ParseSignal("9") == 9);
  CHECK_FALSE(ParseSignal("0").ok());
  CHECK_FALSE(ParseSignal("NOPE").ok());
  CHECK_FALSE(ParseSignal("9x").ok());
  CHECK_FALSE(ParseSignal("").ok());
}

TEST_CASE("proc: start time parsed after the last parenthesis") {
  std::string stat = "123 (we ird) name)) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21";
  auto st = proc::ParseStartTime(stat);
  REQUIRE(st.ok());
  CHECK(*st == 424242u);
  CHECK_FALSE(proc::ParseStartTime("123 (x) Z 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99").ok());
  CHECK_FALSE(proc::ParseStartTime("garbage").ok());
}

TEST_CASE("proc: a recorded pid with another start time is not alive") {
  auto self = proc::Self();
  CHECK(proc::IsAlive(self));
  CHECK_FALSE(proc::IsAlive({self.pid, self.start + 1}));
  CHECK_FALSE(proc::IsAlive({0, 0}));
}

TEST_CASE("fs: atomic write replaces content and leaves no temp file") {
  testing::TempDir d;
  auto f = d.path() / "x.json";
  REQUIRE(fs::WriteFileAtomic(f, "one").ok());
  REQUIRE(fs::WriteFileAtomic(f, "two").ok());
  CHECK(*fs::ReadFile(f) == "two");
  // Not durable: the first write renames, the next ones exchange; same outcome.
  REQUIRE(fs::WriteFileAtomic(d.path() / "y.json", "one", 0600, false).ok());
  REQUIRE(fs::WriteFileAtomic(d.path() / "y.json", "two", 0600, false).ok());
  CHECK(*fs::ReadFile(d.path() / "y.json") == "two");
  auto mode = std::filesystem::status(d.path() / "y.json").permissions() & std::filesystem::perms::all;
  CHECK(mode == (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  std::filesystem::remove(d.path() / "y.json");
  int n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(d.path())) ++n;
  CHECK(n == 1);
  CHECK_FALSE(fs::ReadFile(d.path() / "missing").ok());
  CHECK(fs::RemoveAll(d.path() / "missing").ok());
}

TEST_CASE("log: runc's JSON and text line shapes") {
  auto j = log::FormatLine(log::Format::kJson, "error", "create x: \"bad\"", "2026-01-01T00:00:00Z");
  CHECK(j == R"({"level":"error","msg":"create x: \"bad\"","time":"2026-01-01T00:00:00Z"})");
  auto t = log::FormatLine(log::Format::kText, "warning", "a b", "T");
  CHECK(t == R"(time="T" level=warning msg="a b")");
  log::Format f;
  CHECK(log::ParseFormat("json", &f));
  CHECK(f == log::Format::kJson);
  CHECK_FALSE(log::ParseFormat("xml", &f));
  auto now = log::NowRfc3339();
  CHECK(now.size() == 30);
  CHECK(now.back() == 'Z');
}

TEST_CASE("fault: every crash point is exercised by the fault-injection suite") {
  auto suite = fs::ReadFile(std::string(SANDSHIM_SOURCE_DIR) + "/tests/fault/fault_test.sh");
  REQUIRE(suite.ok());
  for (auto p : fault::kPoints) CHECK_MESSAGE(suite->find(std::string(p)) != std::string::npos, p);
}
