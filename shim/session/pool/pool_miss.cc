// Pool::CreateCold: what a claim the pool cannot serve becomes (never an error of its own).
#include <sys/stat.h>

#include "shim/core/fs.h"
#include "shim/session/store/audit.h"
#include "shim/session/pool/pool.h"

namespace sandshim::session {

Result<SessionRecord> Pool::CreateCold(const ClaimRequest& req, ProfileInputs in, const std::string& reason) {
  auto d = TRY(Load());
  in.profile_file = paths_.profile.string();
  std::filesystem::path ws = req.workspace.empty() ? d.workspace_parent / req.id : std::filesystem::path(req.workspace);
  in.workspace = ws.string();
  auto p = TRY(ResolveProfile(in));
  p.secrets.insert(p.secrets.end(), req.secrets.begin(), req.secrets.end());
  p.secret_sources.insert(p.secret_sources.end(), req.secret_sources.begin(), req.secret_sources.end());
  if (!req.secret_trust_bundle.empty()) p.secret_trust_bundle = req.secret_trust_bundle;
  bool made = !fs::Exists(ws);
  if (made) {
    TRY(fs::MkdirAll(ws.parent_path(), 0755));
    TRY(MakeWorkspace(ws, p.uid, p.gid));
  }
  Sessions sessions(opts_);
  // A snapshot pool's miss is a restore too: the session still starts from the warm state.
  auto r = sessions.Create(req.id, req.name, p, req.resolve, d.from_snapshot);
  if (!r) {
    if (made) ::rmdir(ws.c_str());  // ours and still empty: nothing left behind
    return r.error();
  }
  CountMiss();
  (void)AppendAudit(r->audit, "pool-miss", {{"session", r->id}, {"pool", name_}, {"reason", reason}});
  RefillInBackground();
  return r;
}

}  // namespace sandshim::session
