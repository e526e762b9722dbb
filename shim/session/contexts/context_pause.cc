// A gVisor session's contexts across pause and resume (docs/SESSIONS.md "Pause and resume",
// docs/CONTEXTS.md). runsc's checkpoint and restore carry one container: the session's. So
// pause ends each context's container and keeps everything else of the context on the host
// (its directory: record, exec spec with its env and proxy credentials, home, path key,
// secrets.json; its egress entry in the relay's contexts file), and resume, once the
// session's sandbox is restored, runs each context's container again from those, under the
// same container id, exactly as a cold create (or a spare) made it. The relay is a new one
// after a resume: the contexts' secret declarations are given to it again (values: set again,
// as for the session's own secrets: they never leave relay memory).
//
// What a context ran (its processes, its /tmp, its layer's writes) does not come back: only
// the session's own container is in the image.
#include "shim/session/contexts/context_pause.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/proc.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/session/contexts/context_home.h"
#include "shim/session/contexts/context_spec.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/contexts/contexts_internal.h"
#include "shim/session/egress/secrets.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;
using namespace contexts_internal;
namespace {

std::vector<std::pair<std::filesystem::path, ContextRecord>> Records(const std::filesystem::path& session_dir) {
  std::vector<std::pair<std::filesystem::path, ContextRecord>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ContextsDir(session_dir), ec))
    if (auto r = ReadContext(e.path()); r) out.emplace_back(e.path(), std::move(*r));
  return out;
}

// The spec a context's container runs with: a cold create's (and a spare's), from the
// session's spec and the files in the context's directory. A context claimed from a spare
// made by an older sandshim may have no home or path key: what it did not have, it does not get.
Result<bundle::Spec> ContainerSpecFor(const std::filesystem::path& session_dir, const SessionRecord& s,
                                      const std::filesystem::path& cdir) {
  ContextPlacement at{.in_session_sandbox = true, .session_container = s.container_id};
  auto session_spec = TRY(bundle::LoadSpec(session_dir / layout::kBundle)).doc;
  TRY(PlaceBroker(session_dir, s, session_spec, cdir, at));
  TRY(PlaceIdentity(session_dir, cdir, at));
  if (!fs::Exists(HomeDir(cdir))) at.home_path.clear();
  if (!at.path_file.empty() && !fs::Exists(at.path_file)) at.path_file.clear();
  return bundle::SpecFromJson(TRY(ContextContainerSpec(std::move(session_spec), at)));
}

Status RunContext(runtime::Containers& containers, const std::filesystem::path& session_dir, const SessionRecord& s,
                  const std::filesystem::path& cdir, const ContextRecord& rec) {
  proc::DetachedStdio detached;  // the container outlives this call: none of our stdio
  runtime::CreateRequest req;
  req.id = rec.container_id;
  req.bundle = cdir / layout::kBundle;  // its config.json is the exec spec, left as it is
  req.spec = TRY(ContainerSpecFor(session_dir, s, cdir));
  req.null_stdio = true;
  req.backend = s.backend;
  TRY(containers.Run(std::move(req), /*detach=*/true));
  return Ok();
}

}  // namespace

Status EndContextContainers(runtime::Containers& containers, const std::filesystem::path& session_dir) {
  for (const auto& [cdir, rec] : Records(session_dir)) {
    auto s = containers.Delete(rec.container_id, /*force=*/true);
    if (!s && s.error().err_no != ENOENT) return s.error().Wrap("context " + rec.name);
  }
  return Ok();
}

Status RebuildContexts(runtime::Containers& containers, const std::filesystem::path& session_dir,
                       const SessionRecord& s, bool new_relay) {
  auto records = Records(session_dir);
  // "default" first: it is the one every plain exec goes to.
  std::stable_partition(records.begin(), records.end(), [](const auto& r) { return r.second.name == kDefaultContext; });
  for (const auto& [cdir, rec] : records) {
    TRY_CTX(RunContext(containers, session_dir, s, cdir, rec), "context " + rec.name);
    // The new relay learns the context's secrets (names, hosts, placeholders; no values):
    // its placeholder stays guarded against every other context from the first request.
    if (!new_relay) continue;
    auto text = fs::ReadFile(cdir / layout::kContextSecrets);
    if (!text) continue;
    auto rules = TRY(net::ParseSecretRules(*text));
    if (!rules.empty()) TRY_CTX(net::DeclareSecrets(SecretPaths(session_dir).socket, rules), "context " + rec.name + ": secrets");
  }
  return Ok();
}

}  // namespace sandshim::session
