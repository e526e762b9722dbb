// session::ResolveProfile: profile file, then given flags, env files then --env, then the
// base rootfs (given, or an image built through the builder seam).
#include <doctest/doctest.h>


#include "shim/core/fs.h"
#include "shim/session/exec/resolve_profile.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;

namespace {

struct FakeBuilder {
  std::vector<std::string> built;
  session::RootfsBuilder Fn() {
    return [this](const std::string& source, const rootfs::BuildOptions& o) -> Result<rootfs::BuiltRootfs> {
      built.push_back(source + "@" + o.cache_dir.string());
      rootfs::BuiltRootfs b;
      b.rootfs = "/cache/k/rootfs";
      b.config.env = {"PATH=/image/bin", "LANG=image", "HTTP_PROXY=http://image-proxy", "no_proxy=*"};
      return b;
    };
  }
};

}  // namespace

TEST_CASE("resolve profile: flags win over the file, env files then --env, image env underneath") {
  testing::TempDir d;
  REQUIRE(fs::WriteFileAtomic(d.path() / "p.json",
                              R"({"image":"docker:python:3","hostname":"fromfile","memory":"1g","env":{"LANG":"C.UTF-8"},
                                  "allow_domains":["a.com"],"network":"proxy"})", 0600, false).ok());
  REQUIRE(fs::WriteFileAtomic(d.path() / "e.env", "# comment\nA=file\nB=file\n", 0600, false).ok());
  session::ProfileInputs in;
  in.profile_file = (d.path() / "p.json").string();
  in.workspace = "/w";
  in.hostname = "fromflag";
  in.user = "7:8";
  in.env_files = {(d.path() / "e.env").string()};
  in.env = {"B=flag"};
  in.allow_domains = {"b.com"};
  in.rootfs_cache = "/c";
  FakeBuilder fake;
  auto p = session::ResolveProfile(in, fake.Fn());
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().msg));
  CHECK(fake.built == std::vector<std::string>{"docker:python:3@/c"});
  CHECK(p->rootfs == "/cache/k/rootfs");
  CHECK(p->hostname == "fromflag");
  CHECK(p->memory_bytes == (int64_t{1} << 30));
  CHECK(p->uid == 7);
  CHECK(p->gid == 8);
  CHECK(p->env.at("A") == "file");
  CHECK(p->env.at("B") == "flag");
  CHECK(p->env.at("LANG") == "C.UTF-8");     // the profile's, over the image's
  CHECK(p->env.at("PATH") == "/image/bin");  // the image's, where we set none
  CHECK_FALSE(p->env.contains("HTTP_PROXY"));  // never an image's proxy variables
  CHECK_FALSE(p->env.contains("no_proxy"));
  CHECK(p->allow_domains == std::vector<std::string>{"a.com", "b.com"});
}

TEST_CASE("resolve profile: --rootfs wins over a profile's image; no base at all builds the default") {
  testing::TempDir d;
  REQUIRE(fs::WriteFileAtomic(d.path() / "p.json", R"({"image":"docker:x"})", 0600, false).ok());
  FakeBuilder fake;
  session::ProfileInputs in;
  in.profile_file = (d.path() / "p.json").string();
  in.workspace = "/w";
  in.rootfs = "/my/rootfs";
  auto p = session::ResolveProfile(in, fake.Fn());
  REQUIRE(p.ok());
  CHECK(p->rootfs == "/my/rootfs");
  CHECK(fake.built.empty());
  session::ProfileInputs bare;
  bare.workspace = "/w";
  REQUIRE(session::ResolveProfile(bare, fake.Fn()).ok());
  REQUIRE(fake.built.size() == 1);
  CHECK(fake.built[0].starts_with(std::string(rootfs::kDefaultImage) + "@"));
}

TEST_CASE("resolve profile: errors name their input") {
  FakeBuilder fake;
  session::ProfileInputs in;
  in.rootfs = "/r";
  CHECK(session::ResolveProfile(in, fake.Fn()).error().msg == "--workspace is required");
  in.workspace = "/w";
  in.env_files = {"/nonexistent/e.env"};
  CHECK(session::ResolveProfile(in, fake.Fn()).error().msg.starts_with("--env-file /nonexistent/e.env"));
  in.env_files.clear();
  in.proxy = "http://u:secret@p:3128";
  in.network = "host";
  CHECK_FALSE(session::ResolveProfile(in, fake.Fn()).ok());  // L9: credentials only with --network proxy
  session::ProfileInputs failing;
  failing.workspace = "/w";
  failing.image = "docker:x";
  auto e = session::ResolveProfile(failing, [](const std::string&, const rootfs::BuildOptions&) -> Result<rootfs::BuiltRootfs> {
    return MakeError("no daemon", EIO);
  });
  CHECK(e.error().msg == "no daemon");
}
