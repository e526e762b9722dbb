// rootfs-builder: source refs, OCI parsing, digests, safe extraction of hostile archives
// (built here with libarchive's writer), whiteouts, the cache. Runs as any user; the parts
// that need root (device nodes, ownership) check only when root.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "rootfs-builder/cache.h"
#include "rootfs-builder/digest.h"
#include "rootfs-builder/docker_archive.h"
#include "rootfs-builder/extract.h"
#include "rootfs-builder/oci_layout.h"
#include "rootfs-builder/rootfs.h"
#include "rootfs-builder/source_ref.h"
#include "rootfs-builder/sources.h"
#include "shim/core/remove_tree.h"
#include "shim/core/fs.h"
#include "tests/unit/tar_helpers.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using namespace sandshim::rootfs;
using testing::Filter;
using testing::Read;
using testing::TarEntry;
using testing::WriteTar;
namespace stdfs = std::filesystem;

namespace {


// A scratch area: base/canary (must never change) and base/target (extraction target).
struct Sandbox {
  testing::TempDir tmp;
  stdfs::path base = tmp.path(), target = tmp.path() / "target", canary = tmp.path() / "canary";
  Sandbox() {
    stdfs::create_directories(target);
    REQUIRE(fs::WriteFileAtomic(canary, "original", 0644, false));
  }
  Result<ExtractStats> Run(const std::vector<TarEntry>& entries, bool whiteouts = true, bool keep_privileged = false) {
    WriteTar(base / "in.tar", entries);
    ExtractOptions o;
    o.whiteouts = whiteouts;
    o.keep_privileged = keep_privileged;
    return Extract(base / "in.tar", target, o);
  }
  bool CanaryIntact() {
    struct stat st {};
    return Read(canary) == "original" && ::lstat(canary.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1;
  }
};

// A one-manifest OCI layout with the given layer files; returns the manifest digest.
std::string MakeLayout(const stdfs::path& dir, const std::vector<stdfs::path>& layers, const std::string& tag = "v1") {
  stdfs::create_directories(dir / "blobs/sha256");
  auto put = [&](const std::string& content) {
    std::string hex = Sha256Hex(content);
    REQUIRE(fs::WriteFileAtomic(dir / "blobs/sha256" / hex, content, 0644, false));
    return std::make_pair("sha256:" + hex, content.size());
  };
  auto [cdig, csize] = put(R"({"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin","A=1"],)"
                           R"("Cmd":["/bin/sh"],"WorkingDir":"/w","User":"1000"},"rootfs":{"type":"layers"}})");
  std::string ls;
  for (const auto& l : layers) {
    auto [d, s] = put(Read(l));
    ls += std::string(ls.empty() ? "" : ",") + R"({"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":")" +
          d + R"(","size":)" + std::to_string(s) + "}";
  }
  auto [mdig, msize] = put(R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{)"
                           R"("mediaType":"application/vnd.oci.image.config.v1+json","digest":")" +
                           cdig + R"(","size":)" + std::to_string(csize) + R"(},"layers":[)" + ls + "]}");
  REQUIRE(fs::WriteFileAtomic(dir / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})", 0644, false));
  REQUIRE(fs::WriteFileAtomic(dir / "index.json",
                              R"({"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",)"
                              R"("digest":")" + mdig + R"(","size":)" + std::to_string(msize) +
                                  R"(,"annotations":{"org.opencontainers.image.ref.name":")" + tag + R"("}}]})",
                              0644, false));
  return mdig;
}

}  // namespace

TEST_CASE("rootfs source refs") {
  auto b = ParseSourceRef("busybox");
  REQUIRE(b.ok());
  CHECK(b->kind == SourceKind::kBusybox);
  auto d = ParseSourceRef("debootstrap:bookworm");
  REQUIRE(d.ok());
  CHECK(d->arg == "bookworm");
  CHECK(ToString(*d) == "debootstrap:bookworm");
  auto k = ParseSourceRef("docker:library/busybox:1.36");
  REQUIRE(k.ok());
  CHECK(k->arg == "library/busybox:1.36");
  auto o = ParseSourceRef("oci:/srv/img:v2");
  REQUIRE(o.ok());
  CHECK(o->arg == "/srv/img");
  CHECK(o->tag == "v2");
  auto o2 = ParseSourceRef("oci:/srv/img");
  REQUIRE(o2.ok());
  CHECK(o2->tag == "");
  auto rel = ParseSourceRef("oci:rel/dir:latest");
  REQUIRE(rel.ok());
  CHECK(stdfs::path(rel->arg).is_absolute());
  CHECK(ParseSourceRef("oci-archive:/x/img.tar")->kind == SourceKind::kOciArchive);
  CHECK(ParseSourceRef("tar:/x/root.tar.gz")->arg == "/x/root.tar.gz");
  CHECK_FALSE(ParseSourceRef("nope").ok());
  CHECK_FALSE(ParseSourceRef("ftp:x").ok());
  CHECK_FALSE(ParseSourceRef("tar:").ok());
  CHECK_FALSE(ParseSourceRef("debootstrap:../x").ok());
  CHECK(ParseSourceRef("debootstrap:bookworm+curl,python3,libstdc++6")->arg == "bookworm+curl,python3,libstdc++6");
  CHECK_FALSE(ParseSourceRef("debootstrap:bookworm+").ok());
  CHECK_FALSE(ParseSourceRef("debootstrap:bookworm+curl,,x").ok());
  CHECK_FALSE(ParseSourceRef("debootstrap:bookworm+--force").ok());
  CHECK_FALSE(ParseSourceRef("debootstrap:bookworm+Curl").ok());
  CHECK_FALSE(ParseSourceRef("docker:--help").ok());
}

TEST_CASE("rootfs OCI index, manifest and config parsing") {
  std::string index = R"({"schemaVersion":2,"manifests":[
    {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:)" + std::string(64, 'a') +
                      R"(","size":10,"annotations":{"org.opencontainers.image.ref.name":"v1"}},
    {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:)" + std::string(64, 'b') +
                      R"(","size":11,"annotations":{"io.containerd.image.name":"docker.io/x/y:v2"}}]})";
  auto e = ParseIndex(index);
  REQUIRE(e.ok());
  REQUIRE(e->size() == 2);
  CHECK(SelectByTag(*e, "v1")->digest == "sha256:" + std::string(64, 'a'));
  CHECK(SelectByTag(*e, "v2")->digest == "sha256:" + std::string(64, 'b'));
  CHECK_FALSE(SelectByTag(*e, "").ok());  // ambiguous
  auto missing = SelectByTag(*e, "v3");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().msg.find("have: \"v1\"") != std::string::npos);
  // A digest that would walk out of blobs/ never becomes a descriptor.
  CHECK_FALSE(ParseIndex(R"({"manifests":[{"digest":"sha256:../../etc/passwd"}]})").ok());

  auto m = ParseManifest(R"({"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:)" +
                         std::string(64, 'c') +
                         R"(","size":3},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+zstd",)"
                         R"("digest":"sha256:)" + std::string(64, 'd') + R"(","size":4}]})");
  REQUIRE(m.ok());
  CHECK(m->layers.size() == 1);
  CHECK(m->layers[0].size == 4);
  CHECK_FALSE(ParseManifest(R"({"config":{"digest":"sha256:)" + std::string(64, 'c') +
                            R"("},"layers":[{"mediaType":"application/x-foreign","digest":"sha256:)" +
                            std::string(64, 'd') + R"("}]})")
                  .ok());

  auto c = ParseImageConfig(R"({"config":{"Env":["A=1"],"Entrypoint":["/e"],"Cmd":["c"],"WorkingDir":"/w","User":"u"}})");
  REQUIRE(c.ok());
  CHECK(c->env == std::vector<std::string>{"A=1"});
  CHECK(c->entrypoint == std::vector<std::string>{"/e"});
  CHECK(c->working_dir == "/w");
  CHECK(c->user == "u");
  auto back = ImageConfigFromJson(ToJson(*c));
  CHECK(back.cmd == c->cmd);
}

TEST_CASE("rootfs digests: sha256, validation, mismatch refused") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  testing::TempDir t;
  auto f = t.path() / "blob";
  REQUIRE(fs::WriteFileAtomic(f, "abc", 0644, false));
  CHECK(VerifyBlob(f, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 3).ok());
  auto bad = VerifyBlob(f, "sha256:" + std::string(64, '0'));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("digest mismatch") != std::string::npos);
  CHECK_FALSE(VerifyBlob(f, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 4).ok());
  CHECK_FALSE(ParseDigest("sha512:" + std::string(128, 'a')).ok());
  CHECK_FALSE(ParseDigest("sha256:" + std::string(63, 'a') + "/").ok());
  CHECK_FALSE(ParseDigest("sha256:" + std::string(64, 'A')).ok());
}

TEST_CASE("rootfs entry paths and symlink targets (pure)") {
  CHECK(*CleanEntryPath("./a//b/./c") == "a/b/c");
  CHECK(*CleanEntryPath("./") == "");
  CHECK_FALSE(CleanEntryPath("../x").ok());
  CHECK_FALSE(CleanEntryPath("a/../../x").ok());
  CHECK_FALSE(CleanEntryPath("/etc/passwd").ok());
  CHECK(SymlinkStaysInside("usr/bin/awk", "/etc/alternatives/awk"));  // anchored at the rootfs
  CHECK(SymlinkStaysInside("a/b/c", "../../x"));
  CHECK_FALSE(SymlinkStaysInside("a/b/c", "../../../x"));
  CHECK_FALSE(SymlinkStaysInside("up", "../../.."));
  CHECK_FALSE(SymlinkStaysInside("x", "/../etc"));
}

TEST_CASE("rootfs extraction refuses each escape and leaves the host untouched") {
  struct Case {
    const char* what;
    std::vector<TarEntry> entries;
    const char* names;  // the error must name this entry
  };
  std::string abs_canary;
  {
    Sandbox s;
    abs_canary = s.canary.string();
  }
  std::vector<Case> cases = {
      {"dot-dot", {{"../canary", 'f', "pwned"}}, "../canary"},
      {"dot-dot deep", {{"a/", 'd'}, {"a/../../canary", 'f', "pwned"}}, "a/../../canary"},
      {"absolute", {{"/etc/sandshim-test-evil", 'f', "pwned"}}, "/etc/sandshim-test-evil"},
      {"symlink then through it", {{"a", 'l', "/etc"}, {"a/passwd", 'f', "pwned"}}, "a/passwd"},
      {"symlink to ../../..", {{"up", 'l', "../../.."}}, "up"},
      {"symlink to the canary's dir via ..", {{"d/", 'd'}, {"d/s", 'l', "../../canary"}}, "d/s"},
      {"hard link to /etc/passwd", {{"h", 'h', "/etc/passwd"}}, "\"h\""},
      {"hard link with ..", {{"h", 'h', "../canary"}}, "\"h\""},
      {"hard link through a symlink", {{"s", 'l', "/"}, {"h", 'h', "s/canary"}}, "\"h\""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    Sandbox s;
    // The canary's absolute path as a symlink target: inside the container it is just a path.
    auto r = s.Run(c.entries);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().msg.find("refused entry") != std::string::npos);
    CHECK(r.error().msg.find(c.names) != std::string::npos);
    CHECK(s.CanaryIntact());
    CHECK_FALSE(fs::Exists("/etc/sandshim-test-evil"));
  }
  // Replacing a symlink that points at the canary writes a new file, never through the link.
  Sandbox s;
  auto r = s.Run({{"f", 'l', s.canary.string()}, {"f", 'f', "pwned"}});
  REQUIRE(r.ok());
  CHECK(s.CanaryIntact());
  CHECK(Read(s.target / "f") == "pwned");
  // A hard link to a symlink links the symlink itself.
  Sandbox s2;
  REQUIRE(s2.Run({{"l", 'l', s2.canary.string()}, {"h", 'h', "l"}, {"h", 'f', "pwned"}}).ok());
  CHECK(s2.CanaryIntact());
}

TEST_CASE("rootfs extraction keeps modes, links and special files") {
  Sandbox s;
  auto r = s.Run({{"bin/", 'd', "", 0755},
                  {"bin/tool", 'f', "#!/bin/sh\n", 04755},
                  {"bin/alias", 'h', "bin/tool"},
                  {"bin/sh", 'l', "/bin/tool"},
                  {"ro/", 'd', "", 0555},
                  {"ro/inside", 'f', "x", 0444},
                  {"fifo", 'p', "", 0600},
                  {"null", 'c', "", 0666},
                  {"owned", 'f', "o", 0640, 1234, "user.sandshim=kept"},
                  {"ovl", 'f', "o", 0644, 0, "trusted.overlay.opaque=y"}},
                 true, /*keep_privileged=*/true);  // a trusted source; the default strips (extract_test.cc)
  REQUIRE(r.ok());
  char xv[32] = {};
  ssize_t xn = ::getxattr((s.target / "owned").c_str(), "user.sandshim", xv, sizeof xv);
  if (xn >= 0) CHECK(std::string(xv, static_cast<size_t>(xn)) == "kept");
  else CHECK(r->skipped_xattrs >= 1);  // a filesystem without user xattrs
  CHECK(::getxattr((s.target / "ovl").c_str(), "trusted.overlay.opaque", xv, sizeof xv) < 0);  // never set
  struct stat own {};
  REQUIRE(::stat((s.target / "owned").c_str(), &own) == 0);
  CHECK((own.st_mode & 07777) == 0640);
  if (::geteuid() == 0) CHECK(own.st_uid == 1234);
  else CHECK(own.st_uid == ::geteuid());
  struct stat a {}, b {};
  REQUIRE(::stat((s.target / "bin/tool").c_str(), &a) == 0);
  REQUIRE(::stat((s.target / "bin/alias").c_str(), &b) == 0);
  CHECK(a.st_ino == b.st_ino);
  CHECK((a.st_mode & 07777) == 04755);
  CHECK(stdfs::read_symlink(s.target / "bin/sh") == "/bin/tool");
  REQUIRE(::stat((s.target / "ro").c_str(), &a) == 0);
  CHECK((a.st_mode & 07777) == 0555);
  CHECK(Read(s.target / "ro/inside") == "x");
  REQUIRE(::lstat((s.target / "fifo").c_str(), &a) == 0);
  CHECK(S_ISFIFO(a.st_mode));
  if (::geteuid() == 0) {
    REQUIRE(::lstat((s.target / "null").c_str(), &a) == 0);
    CHECK(S_ISCHR(a.st_mode));
    CHECK(a.st_rdev == makedev(1, 3));
  } else {
    CHECK(r->skipped_devices == 1);
  }
  CHECK(fs::RemoveTree(s.target).ok());  // read-only dirs and all
  CHECK_FALSE(fs::Exists(s.target));
}

TEST_CASE("rootfs layers: whiteouts and opaque directories, gzip and zstd") {
  Sandbox s;
  WriteTar(s.base / "l1.tar.gz",
           {{"a/", 'd'}, {"a/x", 'f', "x"}, {"a/y", 'f', "y"}, {"b", 'f', "b"}, {"c/", 'd'}, {"c/z", 'f', "z"},
            {"c/sub/", 'd'}, {"c/sub/deep", 'f', "d"}},
           Filter::kGzip);
  WriteTar(s.base / "l2.tar.zst",
           {{"a/.wh.x", 'f'}, {".wh.b", 'f'}, {"c/early", 'f', "e"}, {"c/.wh..wh..opq", 'f'}, {"c/new", 'f', "n"},
            {"a/.wh.nothing", 'f'}, {"gone/.wh.x", 'f'}},
           Filter::kZstd);
  ExtractOptions o;
  REQUIRE(Extract(s.base / "l1.tar.gz", s.target, o).ok());
  REQUIRE(Extract(s.base / "l2.tar.zst", s.target, o).ok());
  CHECK_FALSE(fs::Exists(s.target / "a/x"));
  CHECK(Read(s.target / "a/y") == "y");
  CHECK_FALSE(fs::Exists(s.target / "b"));
  CHECK_FALSE(fs::Exists(s.target / "c/z"));
  CHECK_FALSE(fs::Exists(s.target / "c/sub"));
  CHECK(Read(s.target / "c/early") == "e");  // same layer as the opaque marker: kept
  CHECK(Read(s.target / "c/new") == "n");
  CHECK_FALSE(fs::Exists(s.target / "a/.wh.x"));
  CHECK_FALSE(fs::Exists(s.target / "c/.wh..wh..opq"));
  CHECK_FALSE(fs::Exists(s.target / "gone"));
  // A whiteout naming ".." is refused, not obeyed.
  WriteTar(s.base / "l3.tar", {{"a/.wh...", 'f'}});
  CHECK_FALSE(Extract(s.base / "l3.tar", s.target, o).ok());
  CHECK(s.CanaryIntact());
  // The digest is checked again on the bytes extraction reads (a blob swapped after its
  // verification): a mismatch fails the extraction.
  ExtractOptions checked;
  checked.digest = "sha256:" + *Sha256File(s.base / "l1.tar.gz");
  CHECK(Extract(s.base / "l1.tar.gz", s.target, checked).ok());
  checked.digest = "sha256:" + std::string(64, 'e');
  auto mismatch = Extract(s.base / "l1.tar.gz", s.target, checked);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error().msg.find("digest mismatch while extracting") != std::string::npos);
  // Without whiteout semantics (plain tarballs) .wh. files are just files.
  Sandbox p;
  REQUIRE(p.Run({{".wh.keep", 'f', "k"}}, false).ok());
  CHECK(Read(p.target / ".wh.keep") == "k");
}

TEST_CASE("rootfs apt mirror from sources") {
  CHECK(MirrorFromAptSources("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
                             "Components: main\n\nTypes: deb\nURIs: http://deb.debian.org/debian-security\n"
                             "Suites: bookworm-security\n") == "http://deb.debian.org/debian");
  CHECK(MirrorFromAptSources("Types: deb\nURIs: http://security.debian.org/x\nSuites: bookworm-security\n\n"
                             "Types: deb\nURIs: http://m/debian\nSuites: bookworm\n") == "http://m/debian");
  CHECK(MirrorFromAptSources("# c\ndeb [arch=amd64 signed-by=/k] http://ftp.de.debian.org/debian bookworm main\n") ==
        "http://ftp.de.debian.org/debian");
  CHECK(MirrorFromAptSources("deb http://security.debian.org bookworm-security main\n") == "");
}

TEST_CASE("rootfs OCI build: digest mismatch refused, second build reused, gc keeps what is used") {
  testing::TempDir t;
  WriteTar(t.path() / "l1.tar.gz", {{"bin/", 'd'}, {"bin/hello", 'f', "hi", 0755}, {"etc/", 'd'}, {"etc/old", 'f'}},
           Filter::kGzip);
  WriteTar(t.path() / "l2.tar.gz", {{"etc/.wh.old", 'f'}, {"etc/new", 'f', "n"}}, Filter::kGzip);
  auto layout = t.path() / "layout";
  std::string mdig = MakeLayout(layout, {t.path() / "l1.tar.gz", t.path() / "l2.tar.gz"});
  BuildOptions o;
  o.cache_dir = t.path() / "cache";

  // Tamper with the second layer: same size, other bytes.
  auto img = OpenImage(layout, "v1");
  REQUIRE(img.ok());
  CHECK(img->manifest_digest == mdig);
  CHECK(img->config.working_dir == "/w");
  auto blob = img->Blob(img->manifest.layers[1]);
  std::string good = Read(blob);
  std::string evil = good;
  evil[evil.size() / 2] ^= 0x55;
  REQUIRE(fs::WriteFileAtomic(blob, evil, 0644, false));
  auto bad = BuildOrReuse("oci:" + layout.string() + ":v1", o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("digest mismatch") != std::string::npos);
  CHECK(Cache(o.cache_dir).List()->empty());  // nothing published, no temp left
  for (const auto& e : stdfs::directory_iterator(o.cache_dir))
    CHECK(e.path().filename().string().starts_with(".locks"));
  REQUIRE(fs::WriteFileAtomic(blob, good, 0644, false));

  auto first = BuildOrReuse("oci:" + layout.string() + ":v1", o);
  REQUIRE(first.ok());
  CHECK_FALSE(first->reused);
  CHECK(Read(first->rootfs / "bin/hello") == "hi");
  CHECK(Read(first->rootfs / "etc/new") == "n");
  CHECK_FALSE(fs::Exists(first->rootfs / "etc/old"));
  CHECK(first->config.env == std::vector<std::string>{"PATH=/bin", "A=1"});
  CHECK(first->config.user == "1000");
  auto second = BuildOrReuse("oci:" + layout.string(), o);  // the only manifest: same image
  REQUIRE(second.ok());
  CHECK(second->reused);
  CHECK(second->key == first->key);
  CHECK(second->config.cmd == std::vector<std::string>{"/bin/sh"});

  // Concurrent builds of one image: all succeed, one entry.
  auto tarball = t.path() / "root.tar.gz";
  WriteTar(tarball, {{"f", 'f', "x"}}, Filter::kGzip);
  std::vector<std::thread> threads;
  std::atomic<int> built{0}, ok{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      auto r = BuildOrReuse("tar:" + tarball.string(), o);
      if (r) ++ok;
      if (r && !r->reused) ++built;
    });
  for (auto& th : threads) th.join();
  CHECK(ok == 4);
  CHECK(built == 1);

  Cache cache(o.cache_dir);
  REQUIRE(cache.List()->size() == 2);
  auto report = cache.Gc({first->rootfs});
  CHECK(report.errors.empty());
  CHECK(report.kept == std::vector<std::string>{first->key});
  CHECK(report.removed.size() == 1);
  REQUIRE(cache.List()->size() == 1);
  CHECK(cache.Remove(first->key).ok());
  CHECK(cache.List()->empty());
  CHECK_FALSE(cache.Remove(first->key).ok());
}

TEST_CASE("rootfs oci-archive: identity read from index.json inside the tar") {
  testing::TempDir t;
  WriteTar(t.path() / "l1.tar.gz", {{"hello", 'f', "hi"}}, Filter::kGzip);
  std::string mdig = MakeLayout(t.path() / "layout", {t.path() / "l1.tar.gz"}, "latest");
  // Pack the layout with libarchive's writer, entries named as tar would name them.
  std::vector<TarEntry> entries;
  for (const auto& e : stdfs::recursive_directory_iterator(t.path() / "layout")) {
    auto rel = e.path().lexically_relative(t.path() / "layout").string();
    if (e.is_directory()) entries.push_back({rel + "/", 'd', "", 0755});
    else entries.push_back({rel, 'f', Read(e.path())});
  }
  WriteTar(t.path() / "img.tar", entries);
  auto ref = ParseSourceRef("oci-archive:" + (t.path() / "img.tar").string() + ":latest");
  REQUIRE(ref.ok());
  CHECK(*OciArchiveIdentity(*ref) == mdig);
  BuildOptions o;
  o.cache_dir = t.path() / "cache";
  auto r = BuildOrReuse(ToString(*ref), o);
  REQUIRE(r.ok());
  CHECK(Read(r->rootfs / "hello") == "hi");
  // oci: and oci-archive: of one image are different sources, but each reuses itself.
  CHECK(BuildOrReuse(ToString(*ref), o)->reused);
}

TEST_CASE("rootfs docker archive (pre-25 docker save): trusted through the image id and diff_ids") {
  testing::TempDir t;
  auto dir = t.path() / "save";
  stdfs::create_directories(dir / "abc");
  WriteTar(dir / "abc/layer.tar", {{"etc/", 'd'}, {"etc/motd", 'f', "hello"}});
  std::string diff = "sha256:" + *Sha256File(dir / "abc/layer.tar");
  std::string config = R"({"config":{"Env":["PATH=/bin"],"Cmd":["/bin/sh"]},"rootfs":{"type":"layers","diff_ids":[")" +
                       diff + R"("]}})";
  std::string id = "sha256:" + Sha256Hex(config);
  REQUIRE(fs::WriteFileAtomic(dir / (id.substr(7) + ".json"), config, 0644, false));
  auto manifest = [&](const std::string& layer) {
    REQUIRE(fs::WriteFileAtomic(dir / "manifest.json",
                                R"([{"Config":")" + id.substr(7) + R"(.json","RepoTags":["x:latest"],"Layers":[")" +
                                    layer + R"("]}])",
                                0644, false));
  };
  manifest("abc/layer.tar");
  auto img = OpenDockerArchive(dir, id);
  REQUIRE(img.ok());
  CHECK(img->config.cmd == std::vector<std::string>{"/bin/sh"});
  stdfs::create_directories(t.path() / "root");
  REQUIRE(ApplyLayers(*img, t.path() / "root", ExtractOptions{}).ok());
  CHECK(Read(t.path() / "root/etc/motd") == "hello");
  // Another id (a retag while saving, or a forged config) is refused.
  CHECK_FALSE(OpenDockerArchive(dir, "sha256:" + std::string(64, '1')).ok());
  // A layer path out of the archive is refused before anything reads it.
  manifest("../../etc/passwd");
  CHECK_FALSE(OpenDockerArchive(dir, id).ok());
  // A layer whose bytes are not its diff_id is refused before extraction.
  manifest("abc/layer.tar");
  WriteTar(dir / "abc/layer.tar", {{"etc/", 'd'}, {"etc/motd", 'f', "evil!"}});
  auto img2 = OpenDockerArchive(dir, id);
  REQUIRE(img2.ok());
  auto r = ApplyLayers(*img2, t.path() / "root", ExtractOptions{});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().msg.find("digest mismatch") != std::string::npos);
  CHECK(Read(t.path() / "root/etc/motd") == "hello");
}

TEST_CASE("rootfs H4: an oci-archive with two index.json cannot poison the legit image's key") {
  testing::TempDir t;
  WriteTar(t.path() / "legit.tar.gz", {{"IMAGE", 'f', "LEGIT-IMAGE"}}, Filter::kGzip);
  WriteTar(t.path() / "evil.tar.gz", {{"IMAGE", 'f', "ATTACKER-IMAGE"}}, Filter::kGzip);
  MakeLayout(t.path() / "L", {t.path() / "legit.tar.gz"}, "latest");
  MakeLayout(t.path() / "E", {t.path() / "evil.tar.gz"}, "latest");
  auto pack = [&](const stdfs::path& out, std::vector<std::pair<stdfs::path, std::string>> files) {
    std::vector<TarEntry> entries;
    for (const auto& [root, rel] : files) entries.push_back({rel, 'f', Read(root / rel)});
    WriteTar(out, entries);
  };
  std::vector<std::pair<stdfs::path, std::string>> legit{{t.path() / "L", "oci-layout"}, {t.path() / "L", "index.json"}};
  std::vector<std::pair<stdfs::path, std::string>> evil{{t.path() / "L", "index.json"}, {t.path() / "E", "oci-layout"}};
  for (const auto& e : stdfs::recursive_directory_iterator(t.path() / "L/blobs"))
    if (e.is_regular_file()) legit.push_back({t.path() / "L", e.path().lexically_relative(t.path() / "L").string()});
  for (const auto& e : stdfs::recursive_directory_iterator(t.path() / "E/blobs"))
    if (e.is_regular_file()) evil.push_back({t.path() / "E", e.path().lexically_relative(t.path() / "E").string()});
  evil.push_back({t.path() / "E", "index.json"});
  pack(t.path() / "legit.tar", legit);
  pack(t.path() / "evil.tar", evil);

  // Positive control: the two reads the old code made disagree. The first index.json (the
  // key's) names the legit image, the one extraction keeps (the last) the attacker's.
  auto plain = t.path() / "plain";
  stdfs::create_directories(plain);
  ExtractOptions x;
  x.whiteouts = false;
  REQUIRE(Extract(t.path() / "evil.tar", plain, x).ok());
  CHECK(Read(plain / "index.json") == Read(t.path() / "E/index.json"));
  CHECK(Read(plain / "index.json") != Read(t.path() / "L/index.json"));

  BuildOptions o;
  o.cache_dir = t.path() / "cache";
  auto bad = BuildOrReuse("oci-archive:" + (t.path() / "evil.tar").string(), o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().msg.find("twice") != std::string::npos);
  auto good = BuildOrReuse("oci-archive:" + (t.path() / "legit.tar").string(), o);
  REQUIRE(good.ok());
  CHECK_FALSE(good->reused);
  CHECK(Read(good->rootfs / "IMAGE") == "LEGIT-IMAGE");
}

TEST_CASE("rootfs H4: a build checks the content it used against the key's identity") {
  testing::TempDir t;
  WriteTar(t.path() / "root.tar", {{"f", 'f', "x"}});
  auto ref = *ParseSourceRef("tar:" + (t.path() / "root.tar").string());
  BuildOptions o;
  stdfs::create_directories(t.path() / "r");
  Budget budget;
  // The tar changed after its key was computed: the bytes extracted hash to something else.
  BuildDirs stale{t.path() / "r", t.path() / "w", std::string(64, 'a'), &budget};
  auto r = BuildTar(ref, o, stale);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().msg.find("digest mismatch") != std::string::npos);
  BuildDirs fresh{t.path() / "r2", t.path() / "w", *TarIdentity(ref), &budget};
  stdfs::create_directories(fresh.rootfs);
  CHECK(BuildTar(ref, o, fresh).ok());
  // oci: an index.json rewritten between the key and the build names another manifest.
  WriteTar(t.path() / "l.tar.gz", {{"x", 'f', "1"}}, Filter::kGzip);
  MakeLayout(t.path() / "layout", {t.path() / "l.tar.gz"});
  auto oref = *ParseSourceRef("oci:" + (t.path() / "layout").string() + ":v1");
  BuildDirs other{t.path() / "r3", t.path() / "w", "sha256:" + std::string(64, 'b'), &budget};
  stdfs::create_directories(other.rootfs);
  auto oci = BuildOci(oref, o, other);
  REQUIRE_FALSE(oci.ok());
  CHECK(oci.error().msg.find("changed in between") != std::string::npos);
}

TEST_CASE("rootfs cache: 0700 everywhere sandshim creates it, entries included (H3)") {
  testing::TempDir t;
  WriteTar(t.path() / "root.tar", {{"bin/", 'd'}, {"bin/su", 'f', "x", 04755}});
  BuildOptions o;
  o.cache_dir = t.path() / "var/lib/sandshim/rootfs";
  auto r = BuildOrReuse("tar:" + (t.path() / "root.tar").string(), o);
  REQUIRE(r.ok());
  auto mode = [](const stdfs::path& p) {
    struct stat st {};
    REQUIRE(::lstat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
  };
  for (auto p : {t.path() / "var", t.path() / "var/lib", t.path() / "var/lib/sandshim", o.cache_dir,
                 o.cache_dir / r->key})
    CHECK(mode(p) == 0700);
  CHECK(mode(r->rootfs / "bin/su") == 0755);
  CHECK_FALSE(r->keep_privileged);
  // Kept privileged: another key, recorded in the entry.
  o.keep_privileged = true;
  auto k = BuildOrReuse("tar:" + (t.path() / "root.tar").string(), o);
  REQUIRE(k.ok());
  CHECK(k->key != r->key);
  CHECK(mode(k->rootfs / "bin/su") == 04755);
  auto listed = Cache(o.cache_dir).Find(k->key);
  REQUIRE(listed.ok());
  REQUIRE(listed->has_value());
  CHECK((*listed)->keep_privileged);
  // An old 0755 sandshim cache is closed on the next build.
  ::chmod(o.cache_dir.c_str(), 0755);
  o.keep_privileged = false;
  WriteTar(t.path() / "other.tar", {{"g", 'f', "y"}});
  REQUIRE(BuildOrReuse("tar:" + (t.path() / "other.tar").string(), o).ok());
  CHECK(mode(o.cache_dir) == 0700);
}
