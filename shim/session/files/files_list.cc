// The pure halves of session files: the paths given to the session's programs, and the
// listing they print back (strictly parsed: a session can print anything).
#include <sys/stat.h>

#include <charconv>

#include "shim/session/files/files.h"

namespace sandshim::session {

Result<std::string> SessionPath(const std::string& path) {
  if (path.empty()) return MakeError("empty path", EINVAL);
  if (path.find('\0') != std::string::npos) return MakeError("path with a NUL byte", EINVAL);
  std::string p = std::filesystem::path(path).lexically_normal().string();
  if (p.size() > 1 && p.back() == '/') p.pop_back();
  return p.front() == '/' ? p : "./" + p;
}

static const char* TypeName(uint32_t raw) {
  switch (raw & S_IFMT) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "char";
    case S_IFBLK: return "block";
    default: return "unknown";
  }
}

template <typename T>
static bool Number(std::string_view s, T& v, int base = 10) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

static Result<FileEntry> ParseHead(std::string_view line) {
  std::string_view f[5];
  size_t n = 0;
  while (n < 5) {
    auto sp = n == 4 ? std::string_view::npos : line.find(' ');  // the last field: the rest, whole
    f[n++] = line.substr(0, sp);
    if (sp == std::string_view::npos) break;
    line.remove_prefix(sp + 1);
  }
  FileEntry e;
  uint32_t raw = 0;
  if (n != 5 || !Number(f[0], raw, 16) || !Number(f[1], e.size) || !Number(f[2], e.mtime) || !Number(f[3], e.uid) ||
      !Number(f[4], e.gid))
    return MakeError("listing: bad line \"" + std::string(line.substr(0, 80)) + "\"", EPROTO);
  e.type = TypeName(raw);
  e.mode = raw & 07777;
  return e;
}

Result<std::vector<FileEntry>> ParseListing(std::string_view out) {
  std::vector<FileEntry> all;
  while (!out.empty()) {
    auto nl = out.find('\n');
    if (nl == std::string_view::npos) return MakeError("listing: truncated", EPROTO);
    auto e = TRY(ParseHead(out.substr(0, nl)));
    out.remove_prefix(nl + 1);
    auto z1 = out.find('\0');
    auto z2 = z1 == std::string_view::npos ? z1 : out.find('\0', z1 + 1);
    if (z2 == std::string_view::npos) return MakeError("listing: truncated", EPROTO);
    e.name = std::string(out.substr(0, z1));
    e.target = std::string(out.substr(z1 + 1, z2 - z1 - 1));
    if (e.name.empty() || e.name.find('/') != std::string::npos) return MakeError("listing: bad name", EPROTO);
    out.remove_prefix(z2 + 1);
    all.push_back(std::move(e));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return all;
}

}  // namespace sandshim::session
