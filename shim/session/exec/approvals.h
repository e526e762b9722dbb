// Approvals for commands the policy asks about (docs/POLICY.md): each ask gets an approval
// id; a person approves it once (the next identical command runs, once) or always (that
// exact command runs for the rest of the session), or rejects it. A pending or once approval
// expires (the policy's approval_ttl, default 15 min); an expired one asks again.
// Kept in <session dir>/approvals.json (0600); the caller holds the session lock, so a once
// approval is used by exactly one exec.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "shim/core/result.h"

namespace sandshim::session {

enum class ApprovalState { kPending, kOnce, kAlways, kRejected, kUsed };
std::string_view Name(ApprovalState s);

struct Approval {
  std::string id;
  std::string key;      // the command exactly as judged ("argv:[...]" or "shell:...")
  std::string command;  // for people
  std::string rule, reason;
  ApprovalState state = ApprovalState::kPending;
  int64_t created = 0, expires = 0;  // unix seconds; expires 0: never (always)
};

boost::json::object ApprovalToJson(const Approval& a, int64_t now);

// Unix seconds; tests pass their own.
using ApprovalClock = std::function<int64_t()>;
int64_t SystemSeconds();

// What an ask comes to: run (an approval allowed it: how), or wait for approval `id`.
struct Consultation {
  bool run = false;
  std::string id;
  ApprovalState used = ApprovalState::kPending;  // kOnce or kAlways when run
  int64_t expires = 0;                           // waiting: when the approval lapses (unix s)
};

class ApprovalStore {
 public:
  explicit ApprovalStore(std::filesystem::path file, ApprovalClock clock = SystemSeconds)
      : file_(std::move(file)), clock_(std::move(clock)) {}

  Result<std::vector<Approval>> List() const;
  // An ask for `key`: an always approval, or a live once approval (now used up), lets it
  // run; otherwise the live pending approval for it, or a new one.
  Result<Consultation> Consult(const std::string& key, const std::string& command, const std::string& rule,
                               const std::string& reason, std::chrono::seconds ttl);
  // approve (kOnce, kAlways) or reject (kRejected) a pending approval that has not expired.
  Result<Approval> Decide(const std::string& id, ApprovalState to, std::chrono::seconds ttl);

 private:
  Status Save(const std::vector<Approval>& all) const;

  std::filesystem::path file_;
  ApprovalClock clock_;
};

}  // namespace sandshim::session
