// session::UsageFromStats: the typed view of a stats event that inspect and metrics read.
#include <doctest/doctest.h>

#include "shim/session/store/usage.h"

using namespace sandshim;

TEST_CASE("usage from stats: typed fields from either backend's stats event; unknown stays unknown") {
  auto native = boost::json::parse(
      R"({"type":"stats","id":"c","data":{"memory":{"usage":{"usage":4096},"oom_kill":2},"pids":{"current":3},"cpu":{"usage":{"total":99}}}})");
  auto u = session::UsageFromStats(native);
  CHECK(u.memory_bytes == 4096u);
  CHECK(u.oom_kills == 2u);
  CHECK(u.pids == 3u);
  CHECK(u.cpu_ns == 99u);
  auto partial = session::UsageFromStats(boost::json::parse(R"({"data":{"memory":{"usage":{"usage":-5}},"pids":{"current":"3"}}})"));
  CHECK_FALSE(partial.memory_bytes);  // a negative is not a size
  CHECK_FALSE(partial.pids);          // a string is not a count
  CHECK_FALSE(partial.cpu_ns);
  CHECK_FALSE(session::UsageFromStats(boost::json::parse("[1]")).memory_bytes);
}
