#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "shim/core/unique_fd.h"
#include "shim/native/copy_up.h"

namespace fs = std::filesystem;
using sandshim::UniqueFd;

TEST_CASE("tmpcopyup: files, directories and symlinks are copied with their modes; nothing is followed") {
  char tmpl[] = "/tmp/copyup-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  fs::path base = tmpl, from = base / "from", to = base / "to", outside = base / "outside";
  fs::create_directories(from / "sub" / "deep");
  fs::create_directories(to);
  fs::create_directories(outside);
  std::ofstream(from / "a.txt") << "alpha";
  std::ofstream(from / "sub" / "deep" / "b.txt") << "beta";
  std::ofstream(outside / "secret") << "host secret";
  ::chmod((from / "a.txt").c_str(), 0640);
  ::chmod((from / "sub").c_str(), 0710);
  fs::create_symlink("../outside/secret", from / "link");  // copied as a link, never read through
  REQUIRE(::mkfifo((from / "fifo").c_str(), 0600) == 0);   // skipped

  UniqueFd src(::open(from.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  UniqueFd dst(::open(to.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(sandshim::native::CopyTree(src.get(), dst.get()));

  std::string a, b;
  std::getline(std::ifstream(to / "a.txt"), a);
  std::getline(std::ifstream(to / "sub" / "deep" / "b.txt"), b);
  CHECK(a == "alpha");
  CHECK(b == "beta");
  struct stat st;
  REQUIRE(::stat((to / "a.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  REQUIRE(::stat((to / "sub").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0710);
  CHECK(fs::is_symlink(to / "link"));
  CHECK(fs::read_symlink(to / "link") == "../outside/secret");
  CHECK_FALSE(fs::exists(fs::symlink_status(to / "fifo")));
  fs::remove_all(base);
}
