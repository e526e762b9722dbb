#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "shim/core/wait_file.h"

using namespace std::chrono_literals;
namespace stdfs = std::filesystem;

TEST_CASE("wait_file: the file appearing, the writer going, the deadline") {
  char tmpl[] = "/tmp/waitfile-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  stdfs::path dir = tmpl, file = dir / "pid";
  auto now = [] { return std::chrono::steady_clock::now(); };

  std::thread writer([&] {
    std::this_thread::sleep_for(50ms);  // the test's writer, not the code under test
    std::ofstream(file) << "42";
  });
  auto t0 = now();
  auto seen = sandshim::fs::WaitForFile(file, -1, now() + 5s);
  writer.join();
  REQUIRE(seen.ok());
  CHECK(*seen);
  CHECK(now() - t0 < 2s);  // woken by the creation, not by the deadline

  int p[2];
  REQUIRE(::pipe(p) == 0);
  ::close(p[1]);  // the writer is gone: its end reads as EOF at once
  auto gone = sandshim::fs::WaitForFile(dir / "never", p[0], now() + 5s);
  ::close(p[0]);
  REQUIRE(gone.ok());
  CHECK_FALSE(*gone);

  auto late = sandshim::fs::WaitForFile(dir / "never", -1, now() + 50ms);
  REQUIRE_FALSE(late.ok());
  CHECK(late.error().err_no == ETIMEDOUT);
  stdfs::remove_all(dir);
}
