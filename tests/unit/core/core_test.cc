#include <doctest/doctest.h>
#include <boost/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/signals.h"
#include "tests/unit/test_helpers.h"

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
  // containerd parses the line as JSON and keeps the last "level":"error" msg: compare the
  // parsed fields (key order is not part of the contract), and that it is one line.
  auto j = log::FormatLine(log::Format::kJson, "error", "create x: \"bad\"\n", "2026-01-01T00:00:00Z");
  CHECK(j.find('\n') == std::string::npos);
  auto parsed = boost::json::parse(j).as_object();
  CHECK(parsed.size() == 3);
  CHECK(parsed.at("level").as_string() == "error");
  CHECK(parsed.at("msg").as_string() == "create x: \"bad\"\n");
  CHECK(parsed.at("time").as_string() == "2026-01-01T00:00:00Z");
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

// What a crash point does, per point: in a child with SANDSHIM_FAULT naming it, reaching any
// other point is harmless and reaching it is a SIGKILL (what tests/fault/fault_test.sh
// relies on to stand in for a crash). That the suite reaches every point in the real verbs
// is the suite's own last check ("every crash point fired"), which compares the points whose
// SIGKILL it saw with this list.
static int FaultChildStatus(std::string_view armed, std::string_view reached_first, std::string_view reached) {
  // Armed in the parent: the child only reads the environment, nothing after fork allocates.
  ::setenv("SANDSHIM_FAULT", std::string(armed).c_str(), 1);
  pid_t pid = ::fork();
  if (pid == 0) {
    fault::Point(reached_first);
    fault::Point(reached);
    ::_exit(0);
  }
  ::unsetenv("SANDSHIM_FAULT");
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST_CASE("fault: each point SIGKILLs the process only when SANDSHIM_FAULT names it") {
  for (auto p : fault::kPoints) {
    std::string other = p == fault::kPoints[0] ? std::string(fault::kPoints[1]) : std::string(fault::kPoints[0]);
    int st = FaultChildStatus(p, other, p);
    CHECK_MESSAGE(WIFSIGNALED(st), p);
    CHECK_MESSAGE((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL), p);
    int survived = FaultChildStatus(p, other, std::string(p) + ".not");
    CHECK_MESSAGE((WIFEXITED(survived) && WEXITSTATUS(survived) == 0), p);
  }
}
