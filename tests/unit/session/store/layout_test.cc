// The on-disk layout's one owner (shim/session/store/layout.h): its tables are whole, what a
// pool claim rebases is every file that records paths but the ones it writes afresh, and no
// file of a session directory is spelled anywhere else in session/ or cli/.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "shim/session/store/layout.h"

using namespace sandshim::session;
namespace fsys = std::filesystem;

namespace {

std::vector<std::pair<std::string, std::span<const LayoutEntry>>> AllKinds() {
  return {{"session", SessionEntries()}, {"context", ContextEntries()}, {"pool", PoolEntries()},
          {"snapshot", SnapshotEntries()}, {"overlay", OverlayEntries()}};
}

std::string ReadText(const fsys::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every .h/.cc below shim/session and shim/cli, by path relative to the source tree.
std::map<std::string, std::string> SessionSources() {
  std::map<std::string, std::string> out;
  for (const char* top : {"shim/session", "shim/cli"})
    for (const auto& e : fsys::recursive_directory_iterator(fsys::path(SANDSHIM_SOURCE_DIR) / top))
      if (e.path().extension() == ".cc" || e.path().extension() == ".h")
        out[fsys::relative(e.path(), SANDSHIM_SOURCE_DIR).string()] = ReadText(e.path());
  return out;
}

bool IsLayoutFile(const std::string& rel) { return rel.starts_with("shim/session/store/layout."); }

}  // namespace

TEST_CASE("layout: no name twice in a directory; a nested name sits below a listed directory") {
  for (const auto& [kind, entries] : AllKinds()) {
    CAPTURE(kind);
    std::set<std::string_view> names, dirs;
    for (const auto& e : entries) {
      CAPTURE(e.rel);
      CHECK(names.insert(e.rel).second);
      CHECK(!e.rel.empty());
      CHECK(!e.writer.empty());
      if (e.dir) dirs.insert(e.rel);
    }
    for (const auto& e : entries)
      if (auto slash = e.rel.rfind('/'); slash != std::string_view::npos) {
        CAPTURE(e.rel);
        CHECK(dirs.contains(e.rel.substr(0, slash)));
      }
  }
}

TEST_CASE("layout: nothing writable by others; a file that records host paths is the owner's alone") {
  for (const auto& [kind, entries] : AllKinds())
    for (const auto& e : entries) {
      CAPTURE(e.rel);
      CHECK((e.mode & 0022) == 0);
      if (e.paths != HostPaths::kNone && !e.dir) CHECK(e.mode == 0600);
    }
}

TEST_CASE("layout: a pool claim rebases every file that records paths but those it writes afresh") {
  std::set<std::string_view> rebased, rewritten, removed, expected;
  for (const auto& e : ClaimRebased()) rebased.insert(e.rel);
  for (const auto& e : SessionEntries()) {
    if (e.paths == HostPaths::kRebase) expected.insert(e.rel);
    if (e.paths == HostPaths::kRewritten) rewritten.insert(e.rel);
    if (e.paths == HostPaths::kRemoved) removed.insert(e.rel);
  }
  CHECK(rebased == expected);
  // What the claim rebased by hand before the layout owned the list (pool_claim.cc).
  for (auto f : {layout::kJournal, layout::kBundleConfig, layout::kSources}) CHECK(rebased.contains(f.rel));
  // Never rebased: the record, which the claim writes for the session (Pool::ClaimMember),
  // and the member's own files, which its commit removes (the recovery reads them as the
  // member's). A file joins these sets only with the claim doing so: say where here.
  CHECK(rewritten == std::set<std::string_view>{layout::kRecord.rel});
  CHECK(removed == std::set<std::string_view>{layout::kMemberMarker.rel, layout::kMemberRecord.rel});
}

TEST_CASE("layout: no session, context or member file is spelled outside store/layout") {
  // Names distinctive enough to search for (a dot, a dash or an at sign); plain words such as
  // "bundle" or "home" are also JSON keys and verb names.
  // Any name joined to a path (`dir / "bundle"`) is one too.
  std::vector<std::string> quoted{"@sessions", "@names", "@snapshots", "@pool", "@idranges", "@workspace-guards"};
  std::set<std::string> joined;
  for (const auto& [kind, entries] : AllKinds())
    for (const auto& e : entries) {
      if (e.rel.find_first_of(".-@") != std::string_view::npos) quoted.emplace_back("\"" + std::string(e.rel) + "\"");
      joined.insert("/ \"" + std::string(e.rel.substr(0, e.rel.find('/'))) + "\"");
    }
  for (auto& q : quoted)
    if (q.front() == '@') q = "\"" + q + "\"";
  for (const auto& [path, text] : SessionSources()) {
    if (IsLayoutFile(path)) continue;
    for (const auto& n : quoted) {
      CAPTURE(path);
      CAPTURE(n);
      CHECK(text.find(n) == std::string::npos);
    }
    for (const auto& n : joined) {
      CAPTURE(path);
      CAPTURE(n);
      CHECK(text.find(n) == std::string::npos);
    }
  }
}

TEST_CASE("layout: every entry is used by some code outside store/layout") {
  auto header = ReadText(fsys::path(SANDSHIM_SOURCE_DIR) / "shim/session/store/layout.h");
  auto code = header + ReadText(fsys::path(SANDSHIM_SOURCE_DIR) / "shim/session/store/layout.cc");
  auto sources = SessionSources();
  // An accessor stands for its entry: `name(...) const { return *this / layout::kX; }`.
  std::map<std::string, std::vector<std::string>> accessors;
  std::regex accessor(R"((\w+)\([^)]*\) const \{[^}]*?\b(k[A-Z]\w+)\b)");
  for (std::sregex_iterator it(code.begin(), code.end(), accessor), end; it != end; ++it)
    accessors[(*it)[2]].push_back((*it)[1]);
  std::regex entry(R"(inline constexpr LayoutEntry (k\w+)\{)");
  int entries = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), entry), end; it != end; ++it, ++entries) {
    std::string name = (*it)[1];
    std::vector<std::string> uses{"layout::" + name};
    for (const auto& a : accessors[name]) uses.push_back("." + a + "(");
    bool used = false;
    for (const auto& [path, text] : sources)
      for (const auto& u : uses) used = used || (!IsLayoutFile(path) && text.find(u) != std::string::npos);
    CAPTURE(name);
    CHECK(used);
  }
  CHECK(entries > 40);  // the regex still reads the header
}
