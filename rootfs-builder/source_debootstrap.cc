// debootstrap:SUITE[+PKG,...]: a minimal Debian (--variant=minbase) from the mirror apt already uses,
// so it works wherever `apt-get install` does (a proxy or snapshot mirror included).
#include <sstream>

#include "rootfs-builder/sources.h"
#include "rootfs-builder/strip.h"
#include "shim/core/fs.h"
#include "shim/core/process_run.h"

namespace sandshim::rootfs {

namespace stdfs = std::filesystem;

static bool IsMainDebianUri(const std::string& uri, const std::string& suites) {
  return uri.starts_with("http") && uri.find("security") == std::string::npos &&
         suites.find("-security") == std::string::npos;
}

std::string MirrorFromAptSources(const std::string& text) {
  // deb822: blocks of "Key: value" lines; one-line format: "deb [opts] URI SUITE COMP...".
  std::istringstream in(text);
  std::string line, uris, suites;
  auto flush = [&]() -> std::string {
    std::istringstream u(uris);
    std::string first;
    u >> first;
    std::string out = IsMainDebianUri(first, suites) ? first : "";
    uris.clear();
    suites.clear();
    return out;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line.find_first_not_of(" \t") == std::string::npos) {
      if (auto m = flush(); !m.empty()) return m;
      continue;
    }
    if (line[0] == '#') continue;
    if (line.starts_with("URIs:")) uris = line.substr(5);
    else if (line.starts_with("Suites:")) suites = line.substr(7);
    else if (line.starts_with("deb ")) {
      std::istringstream w(line.substr(4));
      std::string tok, uri, suite;
      while (w >> tok) {
        if (tok.starts_with("[")) {
          while (tok.find(']') == std::string::npos && w >> tok) {
          }
          continue;
        }
        if (uri.empty()) uri = tok;
        else if (suite.empty()) suite = tok;
      }
      if (IsMainDebianUri(uri, suite)) return uri;
    }
  }
  return flush();
}

static Result<std::string> Mirror(const BuildOptions& o) {
  if (!o.mirror.empty()) return o.mirror;
  std::vector<stdfs::path> files{"/etc/apt/sources.list"};
  std::error_code ec;
  for (const auto& e : stdfs::directory_iterator("/etc/apt/sources.list.d", ec)) files.push_back(e.path());
  std::sort(files.begin() + 1, files.end());
  for (const auto& f : files) {
    auto text = fs::ReadFile(f);
    if (!text) continue;
    if (auto m = MirrorFromAptSources(*text); !m.empty()) return m;
  }
  return MakeError("debootstrap: no Debian mirror in apt's sources; pass --mirror URL", ENOENT);
}

Result<std::string> DebootstrapIdentity(const SourceRef& r, const BuildOptions& o) {
  // Suite and mirror, not the date: a rebuild happens only when asked for (rootfs rm).
  return r.arg + "\n" + TRY(Mirror(o));
}

Result<ImageConfig> BuildDebootstrap(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  std::string mirror = TRY(Mirror(o));
  process::Command c;
  // On a terminal the user watches debootstrap's own progress (on stderr: stdout carries
  // only the result); otherwise it stays quiet and only a failure's tail is reported.
  bool show = o.progress && o.progress->enabled();
  // "bookworm+curl,python3": debootstrap's --include adds the packages (and what they depend on).
  auto plus = r.arg.find('+');
  c.argv = {"debootstrap", "--variant=minbase"};
  if (plus != std::string::npos) c.argv.push_back("--include=" + r.arg.substr(plus + 1));
  c.argv.insert(c.argv.end(), {r.arg.substr(0, plus), d.rootfs.string(), mirror});
  if (show) c.argv.insert(c.argv.begin(), {"/bin/sh", "-c", "exec \"$@\" 1>&2", "sh"});
  c.capture = !show;
  c.forward_signals = true;
  c.timeout = std::chrono::minutes(60);
  if (show) o.progress->Step("debootstrap " + r.arg + " from " + mirror + "\n");
  auto out = TRY_CTX(process::Run(c), "debootstrap");
  if (!out.Success()) return MakeError("debootstrap " + r.arg + ": " + out.Describe(), EIO);
  // As extraction does for images (H3): no setuid/setgid, file caps or /dev nodes in the cache.
  if (!o.keep_privileged) TRY_CTX(StripPrivileged(d.rootfs), "debootstrap");
  // Leave no apt download cache in a shared, read-only image.
  TRY(fs::RemoveAll(d.rootfs / "var/cache/apt/archives"));
  TRY(fs::MkdirAll(d.rootfs / "var/cache/apt/archives/partial", 0755));
  ImageConfig cfg;
  cfg.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  cfg.cmd = {"/bin/bash"};
  return cfg;
}

}  // namespace sandshim::rootfs
