#include "bundle/oci_process.h"

namespace sandshim::bundle {

static Result<User> ReadUser(const Fields& u) {
  User out;
  out.uid = TRY(u.NumberOr<uint32_t>("uid", 0));
  out.gid = TRY(u.NumberOr<uint32_t>("gid", 0));
  out.umask = TRY(u.Number<uint32_t>("umask"));
  out.additional_gids = TRY(u.Numbers<uint32_t>("additionalGids"));
  return out;
}

static Result<Capabilities> ReadCapabilities(const Fields& c) {
  return Capabilities{TRY(c.Strings("bounding")), TRY(c.Strings("effective")), TRY(c.Strings("permitted")),
                      TRY(c.Strings("inheritable")), TRY(c.Strings("ambient"))};
}

static Result<Rlimit> ReadRlimit(const Fields& r) {
  auto type = TRY(r.String("type"));
  if (!type || type->empty()) return r.Wrong("type", "missing");
  return Rlimit{*type, TRY(r.NumberOr<uint64_t>("soft", 0)), TRY(r.NumberOr<uint64_t>("hard", 0))};
}

Result<Process> ReadProcess(const Fields& p) {
  Process out;
  out.terminal = TRY(p.BoolOr("terminal"));
  out.args = TRY(p.Strings("args"));
  out.env = TRY(p.Strings("env"));
  out.cwd = TRY(p.StringOr("cwd"));
  if (auto u = TRY(p.Object("user"))) out.user = TRY(ReadUser(*u));
  if (auto c = TRY(p.Object("capabilities"))) out.capabilities = TRY(ReadCapabilities(*c));
  for (const auto& r : TRY(p.Objects("rlimits"))) out.rlimits.push_back(TRY(ReadRlimit(r)));
  out.no_new_privileges = TRY(p.BoolOr("noNewPrivileges"));
  out.oom_score_adj = TRY(p.Number<int>("oomScoreAdj"));
  if (out.oom_score_adj && (*out.oom_score_adj < -1000 || *out.oom_score_adj > 1000))
    return p.Wrong("oomScoreAdj", "out of range (-1000..1000)");
  return out;
}

Result<Process> ReadProcess(const boost::json::object& p, std::string_view doc) {
  return ReadProcess(Fields(p, std::string(doc)));
}

}  // namespace sandshim::bundle
