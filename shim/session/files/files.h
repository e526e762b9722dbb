// #35, session files: `session cp` and `session files ls|read|write|rm`.
//
// Every path is resolved by the session itself: each operation is a small program (tar, cat,
// stat, rm) started in the session's own container through Sessions::StartTool, so "..",
// absolute paths and symlinks resolve in the sandbox's view (gVisor's Sentry, or the native
// container's mount namespace after pivot_root), on the workspace and the writable layer alike
// (gVisor keeps that layer in the Sentry's memory: only the sandbox can reach it), whether or
// not the caller can see the workspace on its host. A path can name nothing the session's
// user could not name with a command.
//
// What comes back out is untrusted (a session may replace its own tar): a stream to a host
// directory is unpacked by rootfs::ExtractFd (openat2 beneath the destination, no link
// followed, ".." and absolute names refused, setuid bits and devices dropped), into a
// temporary directory beside the destination, and only the entry asked for is renamed into
// place; anything else, and everything on a failure, is removed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/session/sessions.h"

namespace sandshim::session {

struct FilesOptions {
  std::string user;  // "uid[:gid]"; empty: the session's user
};

struct FileEntry {
  std::string name;
  std::string type;    // file, dir, symlink, fifo, socket, char, block
  uint32_t mode = 0;   // permission bits (07777)
  int64_t size = 0;
  int64_t mtime = 0;   // seconds since the epoch
  uint32_t uid = 0, gid = 0;
  std::string target;  // a symlink's target
};

// What `ls` prints in the session: per entry "<hex raw mode> <size> <mtime> <uid> <gid>\n"
// then the name and the link target, each NUL-terminated. Pure, strict (a session writes it).
Result<std::vector<FileEntry>> ParseListing(std::string_view out);
// The path as the session's programs get it: "./" before a relative one (no name reads as an
// option), lexically normal; an empty path is an error.
Result<std::string> SessionPath(const std::string& path);

Result<std::vector<FileEntry>> ListFiles(Sessions& s, const SessionRecord& r, const std::string& path,
                                         const FilesOptions& o);
// A file's bytes to out_fd; bytes from in_fd into a file (parent directories made).
Status ReadFile(Sessions& s, const SessionRecord& r, const std::string& path, int out_fd, const FilesOptions& o);
Status WriteFile(Sessions& s, const SessionRecord& r, const std::string& path, int in_fd, const FilesOptions& o);
Status RemoveFile(Sessions& s, const SessionRecord& r, const std::string& path, bool recursive, const FilesOptions& o);

// `session cp`. A tar stream of path (its last name the top entry) to out_fd; a tar stream
// from in_fd unpacked into the session's directory dir.
Status TarOut(Sessions& s, const SessionRecord& r, const std::string& path, int out_fd, const FilesOptions& o);
Status TarIn(Sessions& s, const SessionRecord& r, const std::string& dir, int in_fd, const FilesOptions& o);
// A file or tree between the session and the host. An existing directory as the destination
// receives the source under its own name; otherwise the copy gets the destination's name.
Status CopyOut(Sessions& s, const SessionRecord& r, const std::string& path, const std::filesystem::path& host_dest,
               const FilesOptions& o);
Status CopyIn(Sessions& s, const SessionRecord& r, const std::filesystem::path& host_src, const std::string& path,
              const FilesOptions& o);

}  // namespace sandshim::session
