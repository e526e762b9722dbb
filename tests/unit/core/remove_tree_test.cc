// shim/core/remove_tree: removal that never chmods or walks through a symlink (review H5, S2).
// The race (a directory swapped for a link between the stat and the chmod) is made
// deterministic by calling the step that runs after the stat on a name that is a link.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/remove_tree.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
namespace stdfs = std::filesystem;

namespace {

mode_t ModeOf(const stdfs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// tree/d is a symlink to outside (0600): what a local user swaps in for a 0077 directory.
struct Swapped {
  testing::TempDir tmp;
  stdfs::path outside = tmp.path() / "outside", tree = tmp.path() / "tree";
  UniqueFd tree_fd;
  Swapped() {
    REQUIRE(fs::WriteFileAtomic(outside, "secret", 0600, false));
    stdfs::create_directories(tree);
    stdfs::create_symlink(outside, tree / "d");
    tree_fd.Reset(::open(tree.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(tree_fd.valid());
  }
};

}  // namespace

TEST_CASE("remove_tree: positive control: fchmodat without AT_SYMLINK_NOFOLLOW chmods the link's target") {
  Swapped s;
  // What the old RemoveTreeAt ran once the stale stat said "directory".
  REQUIRE(::fchmodat(s.tree_fd.get(), "d", 0777, 0) == 0);
  CHECK(ModeOf(s.outside) == 0777);
}

TEST_CASE("remove_tree: the step after the stat never follows a link") {
  Swapped s;
  auto r = fs::OpenDirForRemoval(s.tree_fd.get(), "d");
  REQUIRE_FALSE(r.ok());
  CHECK((r.error().err_no == ELOOP || r.error().err_no == ENOTDIR));
  CHECK(ModeOf(s.outside) == 0600);
}

TEST_CASE("remove_tree: a tree holding links and locked directories goes, the outside stays") {
  Swapped s;
  stdfs::create_directories(s.tree / "a/b");
  stdfs::create_symlink(s.outside, s.tree / "a/b/l");
  stdfs::create_symlink(s.tmp.path(), s.tree / "a/up");
  REQUIRE(fs::WriteFileAtomic(s.tree / "a/b/f", "x", 0644, false));
  ::chmod((s.tree / "a/b").c_str(), 0);
  ::chmod((s.tree / "a").c_str(), 0500);
  REQUIRE(fs::RemoveTree(s.tree).ok());
  CHECK_FALSE(fs::Exists(s.tree));
  CHECK(ModeOf(s.outside) == 0600);
  CHECK(fs::ReadFile(s.outside).value_or("") == "secret");
  CHECK(fs::RemoveTree(s.tree).ok());  // already gone: done
}
