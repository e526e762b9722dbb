// session cp: tar streams between the session and the host (files.h).
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "rootfs-builder/extract.h"
#include "shim/core/remove_tree.h"
#include "shim/core/scope_exit.h"
#include "shim/session/files/files.h"
#include "shim/session/files/files_host_tar.h"
#include "shim/session/files/files_tool.h"

namespace sandshim::session {
namespace fs = std::filesystem;

// "./NAME" from the directory holding the path: the top entry is the path's last name.
static constexpr const char* kTarOutScript = R"sh(cd "$(dirname "$1")" && exec tar -cf - "./$(basename "$1")")sh";
// A stream into a directory: into it, or (when $1 is not a directory) beside it in a temporary
// directory and then renamed to $1, so a failed copy leaves nothing half-made under $1's name.
static constexpr const char* kTarInScript = R"sh(
if [ -d "$1" ]; then cd "$1" && exec tar -xf -; fi
d=$(dirname "$1") && t=$(mktemp -d "$d/.sandshim-cp.XXXXXX") || exit 1
tar -xf - -C "$t" && mv -f "$t/$2" "$1"; rc=$?; rm -rf "$t"; exit $rc)sh";

// The last name of a path that names a file or directory (not "/", ".", "..").
static Result<std::string> LastName(const std::string& p) {
  std::string name = fs::path(p).filename().string();
  if (name.empty() || name == "." || name == ".." || name == "/")
    return MakeError(p + ": name a file or directory", EINVAL);
  return name;
}

static Result<std::pair<UniqueFd, UniqueFd>> Pipe() {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return MakeError("pipe", errno);
  return std::pair{UniqueFd(p[0]), UniqueFd(p[1])};
}

Status TarOut(Sessions& s, const SessionRecord& r, const std::string& path, int out_fd, const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  TRY(LastName(p));
  auto t = TRY(StartFilesTool(s, r, {"/bin/sh", "-c", kTarOutScript, "sh", p}, o, -1, out_fd, "cp out " + p));
  return FinishFilesTool(r, t);
}

Status TarIn(Sessions& s, const SessionRecord& r, const std::string& dir, int in_fd, const FilesOptions& o) {
  auto p = TRY(SessionPath(dir));
  auto t = TRY(StartFilesTool(s, r, {"/bin/sh", "-c", "cd \"$1\" && exec tar -xf -", "sh", p}, o, in_fd, -1,
                              "cp in " + p));
  return FinishFilesTool(r, t);
}

// What is left in the pipe after the archive's end (tar's last block): read and dropped, up
// to a bound, so the program can finish writing; past it, the program is ended.
static bool Drain(int fd) {
  char buf[1 << 16];
  for (size_t total = 0; total < (1u << 20);) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return n == 0;
    total += static_cast<size_t>(n);
  }
  return false;
}

// Unpacks the session's stream into tmp (beneath it, nothing followed: ExtractFd).
static Status ExtractFromSession(Sessions& s, const SessionRecord& r, const std::string& p, const fs::path& tmp,
                                 const FilesOptions& o) {
  auto [rd, wr] = TRY(Pipe());
  auto t = TRY(StartFilesTool(s, r, {"/bin/sh", "-c", kTarOutScript, "sh", p}, o, -1, wr.get(), "cp out " + p));
  wr.Reset();
  rootfs::ExtractOptions eo;
  eo.whiteouts = false;
  eo.same_owner = false;  // the copy belongs to the caller
  eo.perm_mask = 0775;    // nor does a tenant's set-ID, sticky or world-writable bit land there
  auto got = rootfs::ExtractFd(rd.get(), "the stream of " + p, tmp, eo);
  if (!got || !Drain(rd.get())) {
    AbandonFilesTool(t);
    return got ? MakeError("cp out " + p + ": data after the archive's end", EPROTO) : got.error().Wrap("cp out " + p);
  }
  rd.Reset();
  return FinishFilesTool(r, t);
}

Status CopyOut(Sessions& s, const SessionRecord& r, const std::string& path, const fs::path& host_dest,
               const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  auto name = TRY(LastName(p));
  std::error_code ec;
  bool into = fs::is_directory(host_dest, ec);
  fs::path dir = into ? host_dest : host_dest.parent_path();
  if (dir.empty()) dir = ".";
  fs::path final_path = into ? host_dest / name : host_dest;
  std::string tmpl = (dir / ".sandshim-cp.XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return MakeError("cp: " + dir.string() + ": cannot make a directory there", errno);
  fs::path tmp = tmpl;
  auto cleanup = ScopeExit([&] { (void)sandshim::fs::RemoveTree(tmp); });
  TRY(ExtractFromSession(s, r, p, tmp, o));
  if (::rename((tmp / name).c_str(), final_path.c_str()) != 0)
    return MakeError("cp: " + final_path.string(), errno == ENOENT ? EPROTO : errno);
  return {};
}

Status CopyIn(Sessions& s, const SessionRecord& r, const fs::path& host_src, const std::string& path,
              const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  std::string hs = host_src.lexically_normal().string();
  if (hs.size() > 1 && hs.back() == '/') hs.pop_back();
  auto name = TRY(LastName(hs));
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(hs, ec))) return MakeError("cp: " + hs + ": no such file", ENOENT);
  auto [rd, wr] = TRY(Pipe());
  auto tar = TRY(StartHostTar(hs, wr.get()));
  wr.Reset();
  auto t = StartFilesTool(s, r, {"/bin/sh", "-c", kTarInScript, "sh", p, name}, o, rd.get(), -1, "cp in " + p);
  rd.Reset();  // the session's tar alone reads it now: if it stops, the host's gets EPIPE
  auto wrote = tar.Wait();
  if (!t) return t.error();
  auto done = FinishFilesTool(r, *t);
  if (!done) return done;  // its own message says more than the host tar's EPIPE
  if (!wrote) return wrote.error().Wrap("cp in: tar");
  if (*wrote && !(*wrote)->Success()) return MakeError("cp in: tar of " + hs + ": " + (*wrote)->Describe(), EIO);
  return {};
}

}  // namespace sandshim::session
