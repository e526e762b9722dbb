// rootfs-builder against hostile images (security review 2026-11): privileged bits stripped
// (H3), image layouts with nothing but files and dirs, each once (H4, M10), blobs opened
// beneath the layout (M10), budgets (M13), escaped names (L10). Each check that can shows
// the attack's effect first, with the protection turned off (the positive control).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <chrono>

#include "rootfs-builder/blob.h"
#include "rootfs-builder/escape.h"
#include "rootfs-builder/extract.h"
#include "rootfs-builder/limits.h"
#include "rootfs-builder/rootfs.h"
#include "rootfs-builder/strip.h"
#include "tests/unit/tar_helpers.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::rootfs;
using testing::Filter;
using testing::TarEntry;
using testing::WriteTar;
namespace stdfs = std::filesystem;

namespace {

struct Scratch {
  testing::TempDir tmp;
  stdfs::path in = tmp.path() / "in.tar", target = tmp.path() / "target";
  Scratch() { stdfs::create_directories(target); }
  Result<ExtractStats> Run(const std::vector<TarEntry>& entries, ExtractOptions o = {}, Filter f = Filter::kNone) {
    WriteTar(in, entries, f);
    return Extract(in, target, o);
  }
};

mode_t LMode(const stdfs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

const std::vector<TarEntry> kPrivileged = {
    {"id", 'f', "#!/bin/sh\n", 04755},
    {"grp", 'f', "x", 02755},
    {"capped", 'f', "x", 0755, 0, std::string("security.capability=") + std::string(20, '\1')},
    {"kmsg", 'c', "", 0666, 0, "", makedev(1, 11)},
    {"tmp/", 'd', "", 01777},
};

}  // namespace

TEST_CASE("extract: positive control: keep_privileged keeps setuid/setgid bits (and devices as root)") {
  Scratch s;
  ExtractOptions keep;
  keep.keep_privileged = true;
  auto r = s.Run(kPrivileged, keep);
  REQUIRE(r.ok());
  CHECK((LMode(s.target / "id") & 07777) == 04755);
  CHECK((LMode(s.target / "grp") & 07777) == 02755);
  if (::geteuid() == 0) CHECK(S_ISCHR(LMode(s.target / "kmsg")));
  CHECK(r->stripped == 0);
}

TEST_CASE("extract: setuid/setgid bits, file caps and device nodes are stripped by default (H3)") {
  Scratch s;
  auto r = s.Run(kPrivileged);
  REQUIRE(r.ok());
  CHECK((LMode(s.target / "id") & 07777) == 0755);
  CHECK((LMode(s.target / "grp") & 07777) == 0755);
  char v[64];
  CHECK(::lgetxattr((s.target / "capped").c_str(), "security.capability", v, sizeof v) < 0);
  CHECK_FALSE(fs::Exists(s.target / "kmsg"));
  CHECK((LMode(s.target / "tmp") & 07777) == 01777);  // harmless in a 0700 cache, and images need it
  CHECK(r->stripped >= 4);  // pax may carry the xattr twice (SCHILY and LIBARCHIVE)
}

TEST_CASE("extract: an image layout holds only files and directories, each once (H4, M10)") {
  ExtractOptions layout;
  layout.whiteouts = false;
  layout.layout = true;
  struct Case {
    const char* what;
    std::vector<TarEntry> entries;
  };
  std::vector<Case> refused = {
      {"blob symlink to a host secret", {{"blobs/sha256/x", 'l', "/etc/shadow"}}},
      {"blob symlink to /dev/zero", {{"blobs/sha256/x", 'l', "/dev/zero"}}},
      {"fifo", {{"blobs/sha256/x", 'p'}}},
      {"device", {{"blobs/sha256/x", 'c'}}},
      {"two index.json", {{"index.json", 'f', "{}"}, {"oci-layout", 'f', "{}"}, {"index.json", 'f', "{\"evil\":1}"}}},
  };
  for (const auto& c : refused) {
    CAPTURE(c.what);
    Scratch plain;  // positive control: as a rootfs, the archive extracts
    ExtractOptions rootfs;
    rootfs.whiteouts = false;
    rootfs.keep_privileged = true;
    auto control = plain.Run(c.entries, rootfs);
    if (std::string(c.what) != "device" || ::geteuid() == 0) CHECK(control.ok());
    Scratch s;
    auto r = s.Run(c.entries, layout);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().msg.find("refused entry") != std::string::npos);
  }
  // docker save's own links are left out, not followed, not refused.
  Scratch d;
  ExtractOptions skip = layout;
  skip.skip_links = true;
  REQUIRE(d.Run({{"abc/layer.tar", 'l', "../blobs/sha256/x"}, {"index.json", 'f', "{}"}}, skip).ok());
  CHECK_FALSE(fs::Exists(d.target / "abc/layer.tar"));
  CHECK(fs::Exists(d.target / "index.json"));
}

TEST_CASE("extract: ReadArchiveMember refuses an archive naming index.json twice (H4)") {
  Scratch s;
  WriteTar(s.in, {{"index.json", 'f', "first"}});
  CHECK(ReadArchiveMember(s.in, "index.json").value_or("") == "first");
  WriteTar(s.in, {{"index.json", 'f', "first"}, {"blobs/", 'd'}, {"./index.json", 'f', "second"}});
  auto r = ReadArchiveMember(s.in, "index.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().msg.find("appears twice") != std::string::npos);
}

TEST_CASE("extract: byte and entry budgets stop bombs before they are written (M13)") {
  Scratch s;
  std::string zeros(8 << 20, '\0');  // 8 MiB of zeros: a few KB gzipped
  Budget big;
  ExtractOptions o;
  o.budget = &big;
  REQUIRE(s.Run({{"bomb", 'f', zeros}}, o, Filter::kGzip).ok());  // positive control: it unpacks
  CHECK(stdfs::file_size(s.target / "bomb") == zeros.size());
  CHECK(stdfs::file_size(s.in) < 64 << 10);

  Scratch t;
  Budget small;
  small.max_bytes = 1 << 20;
  o.budget = &small;
  auto r = t.Run({{"bomb", 'f', zeros}}, o, Filter::kGzip);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().msg.find("limit") != std::string::npos);
  CHECK_FALSE(fs::Exists(t.target / "bomb"));  // refused on its header, nothing written

  Scratch u;
  Budget few;
  few.max_entries = 5;
  o.budget = &few;
  std::vector<TarEntry> many;
  for (int i = 0; i < 10; ++i) many.push_back({"f" + std::to_string(i), 'f', "x"});
  auto e = u.Run(many, o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().msg.find("entries") != std::string::npos);
  // One budget spans a build's archives: the second archive pays for the first.
  Budget shared;
  shared.max_bytes = 6 << 20;
  o.budget = &shared;
  Scratch v;
  REQUIRE(v.Run({{"a", 'f', std::string(4 << 20, 'a')}}, o).ok());
  CHECK_FALSE(v.Run({{"b", 'f', std::string(4 << 20, 'b')}}, o).ok());
}

TEST_CASE("extract: names from archives are escaped in errors (L10)") {
  CHECK(Quoted("plain/name") == "\"plain/name\"");
  CHECK(Quoted("a\x1b]0;owned\x07\"\\\xff") == "\"a\\x1b]0;owned\\x07\\\"\\\\\\xff\"");
  Scratch s;
  auto r = s.Run({{"/\x1b[2Jevil", 'f', "x"}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().msg.find('\x1b') == std::string::npos);
  CHECK(r.error().msg.find("\\x1b[2Jevil") != std::string::npos);
}

TEST_CASE("blob: opened beneath the layout, never through a link, FIFO or device (M10)") {
  testing::TempDir t;
  auto dir = t.path() / "layout";
  stdfs::create_directories(dir / "blobs/sha256");
  REQUIRE(fs::WriteFileAtomic(t.path() / "secret", "top secret bytes", 0600, false));
  stdfs::create_symlink(t.path() / "secret", dir / "blobs/sha256/secret");
  stdfs::create_symlink("/dev/zero", dir / "blobs/sha256/zero");
  REQUIRE(::mkfifo((dir / "blobs/sha256/fifo").c_str(), 0600) == 0);
  REQUIRE(fs::WriteFileAtomic(dir / "blobs/sha256/ok", "{}", 0644, false));
  // Positive control: read by path, the link hands over the secret's bytes.
  CHECK(fs::ReadFile(dir / "blobs/sha256/secret").value_or("") == "top secret bytes");
  auto secret = OpenBlob(dir, "blobs/sha256/secret");
  REQUIRE_FALSE(secret.ok());
  CHECK(secret.error().msg.find("16") == std::string::npos);  // no size of the target
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(OpenBlob(dir, "blobs/sha256/zero").ok());
  CHECK_FALSE(OpenBlob(dir, "blobs/sha256/fifo").ok());  // O_NONBLOCK: no writer, no hang
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_FALSE(OpenBlob(dir, "../secret").ok());
  CHECK(ReadSmallBlob(dir, "blobs/sha256/ok").value_or("") == "{}");
  REQUIRE(fs::WriteFileAtomic(dir / "big.json", std::string(100, ' '), 0644, false));
  CHECK_FALSE(ReadSmallBlob(dir, "big.json", 99).ok());
}

TEST_CASE("strip: a built tree loses setuid/setgid bits, never through a link (H3, debootstrap)") {
  testing::TempDir t;
  auto root = t.path() / "root";
  stdfs::create_directories(root / "bin");
  REQUIRE(fs::WriteFileAtomic(root / "bin/su", "x", 0755, false));
  REQUIRE(fs::WriteFileAtomic(t.path() / "outside", "x", 0755, false));
  ::chmod((root / "bin/su").c_str(), 04755);
  ::chmod((t.path() / "outside").c_str(), 04755);
  stdfs::create_symlink(t.path() / "outside", root / "bin/link");
  ::chmod((root / "bin").c_str(), 02755);  // setgid dirs only steer group ownership: kept
  auto n = StripPrivileged(root);
  REQUIRE(n.ok());
  CHECK(*n == 1);
  CHECK((LMode(root / "bin/su") & 07777) == 0755);
  CHECK((LMode(root / "bin") & 07777) == 02755);
  CHECK((LMode(t.path() / "outside") & 07777) == 04755);
}

TEST_CASE("limits: from the environment, a typo is an error rather than no limit") {
  ::setenv("SANDSHIM_ROOTFS_MAX_BYTES", "64m", 1);
  ::setenv("SANDSHIM_ROOTFS_MAX_ENTRIES", "7", 1);
  auto b = BudgetFromEnv();
  REQUIRE(b.ok());
  CHECK(b->max_bytes == uint64_t{64} << 20);
  CHECK(b->max_entries == 7);
  ::setenv("SANDSHIM_ROOTFS_MAX_ENTRIES", "7x", 1);
  CHECK_FALSE(BudgetFromEnv().ok());
  ::setenv("SANDSHIM_ROOTFS_MAX_BYTES", "lots", 1);
  CHECK_FALSE(BudgetFromEnv().ok());
  ::unsetenv("SANDSHIM_ROOTFS_MAX_BYTES");
  ::unsetenv("SANDSHIM_ROOTFS_MAX_ENTRIES");
  auto d = BudgetFromEnv();
  REQUIRE(d.ok());
  CHECK(d->max_bytes == kDefaultMaxBytes);
  CHECK(d->max_entries == kDefaultMaxEntries);
}
