// Content identities (guard.h): a denied program found at start by its name in the usual bin
// directories is remembered by its file (device and inode: the same file under another name
// or link) and by its size, and then its content (a copy). A file of another size is never
// read, so an exec costs one stat here. A copy that differs in one byte is another program:
// this catches copies and renames, not rebuilds.
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <set>

#include "exec-guard/guard.h"

namespace sandshim::guard {
namespace {

constexpr const char* kLoaderDirs[] = {"/lib64", "/lib", "/usr/lib64"};
constexpr const char* kBinDirs[] = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"};

// FNV-1a over the whole file, with its size: tells copies apart from other programs; a
// collision could only refuse more, never less.
std::string Digest(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  uint64_t h = 1469598103934665603ull, size = 0;
  unsigned char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) {
    for (ssize_t i = 0; i < n; ++i) h = (h ^ buf[i]) * 1099511628211ull;
    size += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return std::to_string(size) + ":" + std::to_string(h);
}

// Remembers each file of `dir` whose name `wanted` accepts (resolved: a link is its target).
void Scan(const char* dir, const std::function<bool(const char*)>& wanted, std::vector<Identity>& out) {
  DIR* d = ::opendir(dir);
  if (!d) return;
  std::vector<std::pair<std::string, unsigned char>> found;  // name, d_type
  while (const dirent* e = ::readdir(d))
    if (wanted(e->d_name)) found.emplace_back(e->d_name, e->d_type);
  ::closedir(d);
  for (const auto& [name, type] : found) {
    std::string p = std::string(dir) + "/" + name;
    struct stat st;
    // The file first (one stat, through links): a file already known (busybox's applets, /bin
    // and /usr/bin merged) costs nothing more. Only a link is resolved, for the name of the
    // file it reaches (realpath: a readlink per component, each a trap into the Sentry); a
    // file that is no link is its own name, wherever its directory's links lead.
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    bool known = false;
    for (const auto& id : out) known = known || (id.dev == st.st_dev && id.ino == st.st_ino);
    if (known) continue;
    struct stat lst;  // a link? the directory says so, else lstat
    bool link = type == DT_LNK || (type != DT_REG && (::lstat(p.c_str(), &lst) != 0 || S_ISLNK(lst.st_mode)));
    char real[PATH_MAX];
    if (link && (!::realpath(p.c_str(), real) || ::stat(real, &st) != 0 || !S_ISREG(st.st_mode)))
      continue;  // the file the name reaches now, as before the change to a stat first
    std::string r = link ? std::string(real) : p;
    out.push_back({.name = r.substr(r.rfind('/') + 1), .path = r, .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size, .digest = {}});
  }
}

}  // namespace

std::vector<Identity> FindIdentities(const std::vector<std::string>& programs) {
  std::vector<Identity> out;
  if (programs.empty()) return out;
  std::set<std::string> wanted(programs.begin(), programs.end());
  // Each directory read whole (a few getdents) rather than a lookup per rule and directory:
  // every lookup is a trap into the Sentry, and this runs at the start of every exec.
  for (const char* dir : kBinDirs) Scan(dir, [&](const char* n) { return wanted.contains(n); }, out);
  // The dynamic loader runs any program it is given (JudgeExecve judges what it runs): known by
  // its file too, so a link or copy of it under another name is still the loader.
  for (const char* dir : kLoaderDirs) Scan(dir, [](const char* n) { return policy::IsLoaderName(n); }, out);
  return out;
}

std::string IdentityOf(const std::vector<Identity>& ids, const std::string& path) {
  struct stat st;
  if (ids.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  for (const auto& id : ids)
    if (id.dev == st.st_dev && id.ino == st.st_ino) return id.name;
  std::string mine;
  for (const auto& id : ids) {
    if (id.size != st.st_size) continue;
    if (id.digest.empty()) id.digest = Digest(id.path);
    if (mine.empty()) mine = Digest(path);
    if (!mine.empty() && mine == id.digest) return id.name;
  }
  return "";
}

}  // namespace sandshim::guard
