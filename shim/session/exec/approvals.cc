#include "shim/session/exec/approvals.h"

#include <algorithm>

#include "shim/core/fs.h"
#include "shim/core/ids.h"

namespace sandshim::session {
namespace json = boost::json;

constexpr int64_t kKeepSeconds = 24 * 3600;  // finished approvals stay this long, for `approvals`

std::string_view Name(ApprovalState s) {
  switch (s) {
    case ApprovalState::kPending: return "pending";
    case ApprovalState::kOnce: return "once";
    case ApprovalState::kAlways: return "always";
    case ApprovalState::kRejected: return "rejected";
    case ApprovalState::kUsed: return "used";
  }
  return "pending";
}

static std::optional<ApprovalState> ParseState(std::string_view s) {
  for (auto st : {ApprovalState::kPending, ApprovalState::kOnce, ApprovalState::kAlways, ApprovalState::kRejected,
                  ApprovalState::kUsed})
    if (Name(st) == s) return st;
  return std::nullopt;
}

int64_t SystemSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

static bool Live(const Approval& a, int64_t now) { return a.expires == 0 || now < a.expires; }

json::object ApprovalToJson(const Approval& a, int64_t now) {
  bool expired = !Live(a, now) && (a.state == ApprovalState::kPending || a.state == ApprovalState::kOnce);
  return {{"id", a.id},       {"key", a.key},         {"command", a.command},   {"rule", a.rule},
          {"reason", a.reason}, {"state", expired ? std::string("expired") : std::string(Name(a.state))},
          {"created", a.created}, {"expires", a.expires}};
}

static Result<Approval> FromJson(const json::value& v) {
  if (!v.is_object()) return MakeError("approvals.json: not an object", EINVAL);
  const auto& o = v.get_object();
  auto str = [&](const char* k) -> std::string {
    auto* f = o.if_contains(k);
    return f && f->is_string() ? std::string(f->get_string()) : std::string();
  };
  auto num = [&](const char* k) -> int64_t {
    auto* f = o.if_contains(k);
    return f && f->is_int64() ? f->get_int64() : 0;
  };
  Approval a{str("id"), str("key"), str("command"), str("rule"), str("reason"), ApprovalState::kPending, num("created"),
             num("expires")};
  auto st = ParseState(str("state"));
  if (!st || a.id.empty()) return MakeError("approvals.json: bad entry", EINVAL);
  a.state = *st;
  return a;
}

Result<std::vector<Approval>> ApprovalStore::List() const {
  auto text = fs::ReadFile(file_);
  if (!text) return std::vector<Approval>{};
  boost::system::error_code ec;
  auto doc = json::parse(*text, ec);
  if (ec || !doc.is_array()) return MakeError(file_.string() + ": not a JSON array", EINVAL);
  std::vector<Approval> out;
  for (const auto& v : doc.get_array()) out.push_back(TRY(FromJson(v)));
  return out;
}

Status ApprovalStore::Save(const std::vector<Approval>& all) const {
  json::array arr;
  int64_t now = clock_();
  for (const auto& a : all) {
    json::object o = ApprovalToJson(a, now);
    o["state"] = Name(a.state);  // stored as decided; "expired" is computed when shown
    arr.push_back(std::move(o));
  }
  return fs::WriteFileAtomic(file_, json::serialize(arr), 0600, /*sync=*/false);
}

Result<Consultation> ApprovalStore::Consult(const std::string& key, const std::string& command, const std::string& rule,
                                            const std::string& reason, std::chrono::seconds ttl) {
  auto all = TRY(List());
  int64_t now = clock_();
  // Forget what finished long ago, so the file stays small.
  std::erase_if(all, [&](const Approval& a) {
    return a.state != ApprovalState::kAlways && a.expires != 0 && a.expires + kKeepSeconds < now;
  });
  for (auto& a : all) {
    if (a.key != key) continue;
    if (a.state == ApprovalState::kAlways) return Consultation{true, a.id, ApprovalState::kAlways};
    if (a.state == ApprovalState::kOnce && Live(a, now)) {
      a.state = ApprovalState::kUsed;  // used up before the command runs: never twice
      TRY(Save(all));
      return Consultation{true, a.id, ApprovalState::kOnce};
    }
  }
  for (const auto& a : all)
    if (a.key == key && a.state == ApprovalState::kPending && Live(a, now))
      return Consultation{false, a.id, ApprovalState::kPending, a.expires};
  Approval a{TRY(NewId("ap-")), key, command, rule, reason, ApprovalState::kPending, now, now + ttl.count()};
  all.push_back(a);
  TRY(Save(all));
  return Consultation{false, a.id, ApprovalState::kPending, a.expires};
}

Result<Approval> ApprovalStore::Decide(const std::string& id, ApprovalState to, std::chrono::seconds ttl) {
  auto all = TRY(List());
  int64_t now = clock_();
  auto it = std::find_if(all.begin(), all.end(), [&](const Approval& a) { return a.id == id; });
  if (it == all.end()) return MakeError("approval " + id + " does not exist", ENOENT);
  if (it->state != ApprovalState::kPending)
    return MakeError("approval " + id + " is already " + std::string(Name(it->state)), EINVAL);
  if (!Live(*it, now)) return MakeError("approval " + id + " has expired: run the command again for a new one", ETIMEDOUT);
  it->state = to;
  // once: to be used within the ttl; always: for the rest of the session.
  it->expires = to == ApprovalState::kAlways ? 0 : now + ttl.count();
  TRY(Save(all));
  return *it;
}

}  // namespace sandshim::session
