// Spare context containers (context_spare.h): their ids and how a session's spares are counted.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/context_spec.h"

namespace sandshim::session {

TEST_CASE("spare ids: never a cold context's id, unique, valid container ids") {
  auto a = NewSpareId("s1").value(), b = NewSpareId("s1").value();
  CHECK(a.rfind("spare-", 0) == 0);
  CHECK(a.size() == std::string("spare-").size() + 12 + std::string("+s1").size());
  CHECK(a.substr(a.size() - 3) == "+s1");
  CHECK(a != b);
  CHECK(ValidateId(a));
  // A cold context's id starts "ctx-" whatever its name: the two never meet.
  CHECK(ContextContainerId("s1", "spare-000000000000").rfind("ctx-", 0) == 0);
}

TEST_CASE("spares counted: ready (marker) apart from being made; none without a spares dir") {
  auto dir = std::filesystem::temp_directory_path() / ("spare-count-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CHECK(CountSpares(dir).ready == 0);
  CHECK(CountSpares(dir).making == 0);
  CHECK_FALSE(TryLockRefill(dir).value().has_value());  // no spares dir: no refill to wait for
  REQUIRE(PrepareSpares(dir));
  std::filesystem::create_directories(SparesDir(dir) / "spare-aaaaaaaaaaaa+s" / "bundle");
  std::filesystem::create_directories(SparesDir(dir) / "spare-bbbbbbbbbbbb+s" / "bundle");
  REQUIRE(fs::WriteFileAtomic(SparesDir(dir) / "spare-aaaaaaaaaaaa+s" / "ready", "", 0600));
  CHECK(CountSpares(dir).ready == 1);
  CHECK(CountSpares(dir).making == 1);
  // The refill lock: one holder at a time.
  {
    auto held = TryLockRefill(dir);
    REQUIRE(held);
    CHECK(held->has_value());
    CHECK_FALSE(TryLockRefill(dir).value().has_value());
  }
  CHECK(TryLockRefill(dir).value().has_value());  // released with its holder
  std::filesystem::remove_all(dir);
}

}  // namespace sandshim::session
