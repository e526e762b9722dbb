// `session cp SRC DST`: a file or tree between a session and the host, one side written
// ID:PATH (a local path with a colon: ./a:b). "-" on the host side is a tar stream on stdin
// (into the session's directory PATH) or stdout (PATH and everything below it).
#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/session/files/files.h"

namespace sandshim::cli {
namespace {

struct Remote {
  std::string ref, path;
};

// ID:PATH when a colon comes before any slash; anything else is a host path.
std::optional<Remote> ParseRemote(const std::string& arg) {
  auto colon = arg.find(':');
  if (colon == std::string::npos || colon == 0 || arg.find('/') < colon) return std::nullopt;
  return Remote{arg.substr(0, colon), arg.substr(colon + 1)};
}

struct CpArgs {
  std::string src, dst, user;
};

int Copy(Verbs& v, const CpArgs& a) {
  auto from = ParseRemote(a.src), to = ParseRemote(a.dst);
  if (from.has_value() == to.has_value())
    return ExitWith(Status(MakeError("session cp: exactly one side is ID:PATH (a session's path)", EINVAL)));
  const Remote& rem = from ? *from : *to;
  auto s = OpenSessions(v.global);
  if (!s) return ExitWith(Status(s.error()));
  auto target = s->ForExec(rem.ref);
  if (!target) return ExitWith(Status(target.error().Wrap("session cp " + rem.ref)));
  runtime::EnsureSealedFor(runtime::TraitsOf(target->backend));
  session::FilesOptions o{a.user};
  Status done;
  if (from && a.dst == "-") {
    std::cout.flush();
    done = session::TarOut(*s, *target, rem.path, 1, o);
  } else if (from) {
    done = session::CopyOut(*s, *target, rem.path, a.dst, o);
  } else if (a.src == "-") {
    done = session::TarIn(*s, *target, rem.path, 0, o);
  } else {
    done = session::CopyIn(*s, *target, a.src, rem.path, o);
  }
  if (!done) return ExitWith(Status(done.error().Wrap("session cp " + rem.ref)));
  return 0;
}

}  // namespace

void RegisterSessionCp(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<CpArgs>();
  auto* sub = v.Add("cp", "copy a file or tree into or out of a session (ID:PATH on one side; - for a tar stream)",
                    [&v, a] { return Copy(v, *a); }, parent);
  sub->add_option("src", a->src, "HOST_PATH, ID:PATH, or - (a tar stream on stdin)")->required();
  sub->add_option("dst", a->dst, "ID:PATH, HOST_PATH, or - (a tar stream to stdout)")->required();
  sub->add_option("-u,--user", a->user, "uid[:gid] to act as in the session (default: the session's user)");
}

}  // namespace sandshim::cli
