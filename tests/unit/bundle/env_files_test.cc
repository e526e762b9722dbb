// --env-file (bundle::ReadEnvFiles): the one reader of KEY=VALUE files for session create,
// session exec and context create (values kept off argv).
#include <doctest/doctest.h>

#include "bundle/session_spec.h"
#include "shim/core/fs.h"
#include "tests/unit/test_helpers.h"

namespace sandshim::bundle {

TEST_CASE("env files: lines in order, comments and blanks skipped, '=' in values kept") {
  testing::TempDir dir;
  auto a = dir.path() / "a", b = dir.path() / "b";
  REQUIRE(fs::WriteFileAtomic(a, "# a comment\nA=one two\n\nB=x=y\n", 0600).ok());
  REQUIRE(fs::WriteFileAtomic(b, "A=again\n", 0600).ok());
  auto got = ReadEnvFiles({a.string(), b.string()});
  REQUIRE(got.ok());
  REQUIRE(got->size() == 3);
  CHECK((*got)[0] == std::pair<std::string, std::string>{"A", "one two"});
  CHECK((*got)[1] == std::pair<std::string, std::string>{"B", "x=y"});
  CHECK((*got)[2] == std::pair<std::string, std::string>{"A", "again"});  // the caller lets a later key win
}

TEST_CASE("env files: a bad line or a missing file is one error naming the file") {
  testing::TempDir dir;
  auto bad = dir.path() / "bad";
  REQUIRE(fs::WriteFileAtomic(bad, "OK=1\n1BAD=2\n", 0600).ok());
  auto got = ReadEnvFiles({bad.string()});
  REQUIRE_FALSE(got.ok());
  CHECK(got.error().msg.find("--env-file " + bad.string()) != std::string::npos);
  CHECK_FALSE(ReadEnvFiles({(dir.path() / "none").string()}).ok());
  CHECK(ReadEnvFiles({}).value().empty());
}

}  // namespace sandshim::bundle
