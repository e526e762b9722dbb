// session files ls|read|write|rm: one program in the session per call (files.h).
#include "shim/session/files/files.h"

#include <sys/mman.h>
#include <unistd.h>

#include "shim/session/files/files_tool.h"

namespace sandshim::session {

// One entry per NUL-framed record (ParseListing); a directory lists its entries, anything
// else itself. Paths are arguments, never part of the script.
static constexpr const char* kListScript = R"sh(
emit() { s=$(stat -c '%f %s %Y %u %g' "$1") || return 1; t=; if [ -L "$1" ]; then t=$(readlink "$1"); fi
         printf '%s\n%s\0%s\0' "$s" "$2" "$t"; }
p=$1
if [ -d "$p" ] && [ ! -L "$p" ]; then
  for f in "$p"/* "$p"/.[!.]* "$p"/..?*; do
    if [ -e "$f" ] || [ -L "$f" ]; then emit "$f" "${f##*/}" || exit 1; fi
  done
elif [ -e "$p" ] || [ -L "$p" ]; then emit "$p" "${p##*/}" || exit 1
else echo "$p: No such file or directory" >&2; exit 2
fi)sh";

// read and write open only a regular file (or nothing yet, for write): a FIFO the session
// put at the path would hold the open, and the caller's `session files`, until a peer came
// (issue #31: the platform reads and writes the workspace through these). Checked by stat, in
// the session's own view; a FIFO swapped in after it still waits (the caller's deadline).
static constexpr const char* kReadScript = R"sh(
if [ -e "$1" ] && [ ! -f "$1" ]; then echo "$1: not a regular file" >&2; exit 1; fi
exec cat "$1")sh";

static constexpr const char* kWriteScript = R"sh(
if [ -e "$1" ] && [ ! -f "$1" ]; then echo "$1: not a regular file" >&2; exit 1; fi
d=$(dirname "$1") && mkdir -p "$d" && exec cat > "$1")sh";

static constexpr const char* kRemoveScript = R"sh(
if [ -e "$2" ] || [ -L "$2" ]; then exec rm "$1" "$2"; fi
echo "$2: No such file or directory" >&2; exit 2)sh";

static Status RunTool(Sessions& s, const SessionRecord& r, std::vector<std::string> argv, const FilesOptions& o,
                      int in_fd, int out_fd, const std::string& what) {
  auto t = TRY(StartFilesTool(s, r, argv, o, in_fd, out_fd, what));
  return FinishFilesTool(r, t);
}

Result<std::vector<FileEntry>> ListFiles(Sessions& s, const SessionRecord& r, const std::string& path,
                                         const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  UniqueFd out(::memfd_create("sandshim-ls", MFD_CLOEXEC));
  if (!out.valid()) return MakeError("memfd_create", errno);
  TRY(RunTool(s, r, {"/bin/sh", "-c", kListScript, "sh", p}, o, -1, out.get(), "ls " + p));
  std::string text;
  char buf[65536];
  for (off_t at = 0;;) {
    ssize_t n = ::pread(out.get(), buf, sizeof buf, at);
    if (n < 0) return MakeError("ls: read", errno);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  auto all = ParseListing(text);
  if (!all) return all.error().Wrap("ls " + p);
  return all;
}

Status ReadFile(Sessions& s, const SessionRecord& r, const std::string& path, int out_fd, const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  return RunTool(s, r, {"/bin/sh", "-c", kReadScript, "sh", p}, o, -1, out_fd, "read " + p);
}

Status WriteFile(Sessions& s, const SessionRecord& r, const std::string& path, int in_fd, const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  return RunTool(s, r, {"/bin/sh", "-c", kWriteScript, "sh", p}, o, in_fd, -1, "write " + p);
}

Status RemoveFile(Sessions& s, const SessionRecord& r, const std::string& path, bool recursive, const FilesOptions& o) {
  auto p = TRY(SessionPath(path));
  return RunTool(s, r, {"/bin/sh", "-c", kRemoveScript, "sh", recursive ? "-rf" : "-f", p}, o, -1, -1, "rm " + p);
}

}  // namespace sandshim::session
