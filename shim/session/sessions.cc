#include "shim/session/sessions.h"

#include <sys/stat.h>

#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/scope_exit.h"

namespace sandshim::session {
namespace json = boost::json;

Sessions::Sessions(runtime::Options o) : root_(o.root), containers_(std::move(o)) {}

Status Sessions::Save(const SessionRecord& r) {
  json::object o{{"id", r.id},           {"container_id", r.container_id}, {"backend", r.backend},
                 {"workspace", r.workspace}, {"rootfs", r.rootfs},         {"created", r.created},
                 {"last_used", r.last_used}};
  return fs::WriteFileAtomic(Dir(r.id) / "session.json", json::serialize(o), 0644);
}

Result<SessionRecord> Sessions::Get(const std::string& id) {
  TRY(ValidateId(id));
  auto text = fs::ReadFile(Dir(id) / "session.json");
  if (!text) return MakeError("session " + id + " does not exist", ENOENT);
  auto v = TRY(bundle::ParseJson(*text, "session " + id));
  const auto& o = v.as_object();
  SessionRecord r{bundle::GetString(o, "id"),        bundle::GetString(o, "container_id"),
                  bundle::GetString(o, "backend"),   bundle::GetString(o, "workspace"),
                  bundle::GetString(o, "rootfs"),    bundle::GetString(o, "created"),
                  bundle::GetString(o, "last_used"), "unknown"};
  auto st = containers_.State(r.container_id);
  r.status = st ? std::string(runtime::StatusName(st->status)) : "gone";
  return r;
}

Result<SessionRecord> Sessions::Create(const std::string& id, const bundle::SessionProfile& profile) {
  TRY(ValidateId(id));
  bundle::SessionProfile p = profile;
  std::error_code ec;
  p.workspace = std::filesystem::canonical(p.workspace, ec).string();
  if (ec || !std::filesystem::is_directory(p.workspace)) return MakeError("--workspace " + profile.workspace + ": not a directory", ENOENT);
  p.rootfs = std::filesystem::canonical(p.rootfs, ec).string();
  if (ec || !std::filesystem::is_directory(p.rootfs)) return MakeError("--rootfs " + profile.rootfs + ": not a directory", ENOENT);
  auto spec_json = TRY(bundle::SessionSpec(p));
  // Before the session's directory exists: the native backend re-executes sandshim here.
  TRY(containers_.Prepare(TRY(bundle::ParseSpec(json::serialize(spec_json)))));
  TRY(fs::MkdirAll(root_ / "@sessions", 0711));
  auto dir = Dir(id);
  if (::mkdir(dir.c_str(), 0755) != 0)
    return errno == EEXIST ? MakeError("session " + id + " already exists", EEXIST) : ErrnoError("mkdir " + dir.string());
  ScopeExit cleanup([&] { (void)fs::RemoveAll(dir); });
  TRY(fs::MkdirAll(dir / "bundle", 0755));
  TRY(fs::WriteFileAtomic(dir / "bundle" / "config.json", json::serialize(spec_json), 0644));
  runtime::CreateRequest req;
  req.id = "sess-" + id;
  req.bundle = dir / "bundle";
  req.spec = TRY(bundle::LoadSpec(req.bundle));
  TRY_CTX(containers_.Run(std::move(req), /*detach=*/true), "session " + id);
  auto st = TRY(containers_.State("sess-" + id));
  SessionRecord r{id, "sess-" + id, st.backend, p.workspace, p.rootfs, log::NowRfc3339(), log::NowRfc3339(), "running"};
  if (auto s = Save(r); !s) {
    (void)containers_.Delete(r.container_id, true);
    return s.error();
  }
  cleanup.Dismiss();
  return r;
}

Result<int> Sessions::Exec(const std::string& id, const bundle::ExecOverrides& o) {
  auto r = TRY(Get(id));
  r.last_used = log::NowRfc3339();
  TRY(Save(r));  // before the exec: for gVisor this process becomes the command
  auto spec = TRY(containers_.SpecOf(r.container_id));
  runtime::ExecRequest req;
  req.process = TRY(bundle::ProcessFromOverrides(spec, o));
  return containers_.Exec(r.container_id, std::move(req));
}

std::vector<SessionRecord> Sessions::List() {
  std::vector<SessionRecord> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root_ / "@sessions", ec))
    if (auto r = Get(e.path().filename().string()); r) out.push_back(std::move(*r));
  return out;
}

Status Sessions::Delete(const std::string& id) {
  auto r = TRY(Get(id));
  auto s = containers_.Delete(r.container_id, true);
  if (!s && s.error().err_no != ENOENT) return s.error().Wrap("session " + id);
  return fs::RemoveAll(Dir(id));
}

}  // namespace sandshim::session
