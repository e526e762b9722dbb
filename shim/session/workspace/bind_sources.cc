#include "shim/session/workspace/bind_sources.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/unique_fd.h"

namespace sandshim::session {
namespace json = boost::json;

// O_PATH, with no symlink (nor /proc magic link) in any component: the path must lead to
// the object itself.
static Result<struct stat> StatNoSymlinks(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how)));
  if (!fd.valid()) return ErrnoError("open " + path + " without following symlinks");
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + path);
  return st;
}

// Where the host keeps what a sandbox must never be handed through a link, nor as a whole.
static constexpr std::string_view kSystemDirs[] = {"/etc",  "/usr",  "/bin",     "/sbin",     "/lib",     "/lib32",
                                                   "/lib64", "/libx32", "/boot", "/root",     "/proc",    "/sys",
                                                   "/dev",  "/var/lib", "/var/log", "/var/spool", "/var/cache", "/var/mail"};
// Shared parents: fine below (workspaces live there), never as a whole.
static constexpr std::string_view kSharedParents[] = {"/home", "/run", "/var", "/tmp", "/opt", "/srv", "/mnt", "/media"};

static bool Below(const std::string& path, std::string_view dir) {
  return path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/';
}

std::string RefusedSource(const std::filesystem::path& given, const std::filesystem::path& canonical) {
  std::string c = canonical.string();
  if (c == "/") return "is the host's / (refused)";
  for (auto dir : kSystemDirs)
    if (c == dir) return "is the host directory " + c + " (refused)";
  for (auto dir : kSharedParents)
    if (c == dir) return "is the host directory " + c + " (refused)";
  auto written = std::filesystem::absolute(given).lexically_normal();
  if (!written.has_filename()) written = written.parent_path();  // "dir/"
  if (written == canonical) return "";  // named directly, no link on the way
  for (auto dir : kSystemDirs)
    if (Below(c, dir)) return "leads through a symlink into the host directory " + std::string(dir) + " (" + c + "): refused";
  return "";
}

Result<std::string> ResolveSource(const std::string& given, std::string_view what) {
  std::error_code ec;
  auto canonical = std::filesystem::canonical(given, ec);
  if (ec) return MakeError(std::string(what) + " " + given + ": " + ec.message(), ec.value());
  if (auto why = RefusedSource(given, canonical); !why.empty())
    return MakeError(std::string(what) + " " + given + " " + why, EPERM);
  return canonical.string();
}

Result<json::object> PinSource(const std::string& source) {
  auto canonical = TRY(ResolveSource(source, "bind source"));
  auto st = TRY(StatNoSymlinks(canonical));
  return json::object{{"path", canonical},
                      {"dev", static_cast<uint64_t>(st.st_dev)},
                      {"ino", static_cast<uint64_t>(st.st_ino)}};
}

Status VerifyPinned(const json::array& pins) {
  for (const auto& v : pins) {
    const auto* o = v.if_object();
    if (!o || !o->contains("path") || !o->at("path").is_string()) return MakeError("sources.json: bad entry", EINVAL);
    std::string path(o->at("path").get_string());
    auto st = StatNoSymlinks(path);
    if (!st) return st.error().Wrap("bind source changed since create");
    boost::system::error_code e1, e2;
    auto dev = o->at("dev").to_number<uint64_t>(e1);
    auto ino = o->at("ino").to_number<uint64_t>(e2);
    if (e1 || e2 || dev != static_cast<uint64_t>(st->st_dev) || ino != static_cast<uint64_t>(st->st_ino))
      return MakeError("bind source " + path + " is not the directory pinned at create (replaced?)", EPERM);
  }
  return Ok();
}

}  // namespace sandshim::session
