// The command policy as data: the settings-file shape coding agents use,
//   {"permissions": {"allow": [...], "ask": [...], "deny": [...]}}
// with rules shell(PREFIX:*) / shell(EXACT), file(read|write:GLOB[:*]) and
// network(outbound:HOST|*), parsed once into typed rules (docs/POLICY.md). ${WORKSPACE} in a
// rule is the session's workspace as the sandbox sees it.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::policy {

// Ordered by strength: the decision of a script is the strongest of its parts.
enum class Decision { kAllow = 0, kAsk = 1, kDeny = 2 };
std::string_view Name(Decision d);

enum class Access { kRead, kWrite };

struct ShellRule {
  std::string text;                // as written, for the audit and the JSON answer
  std::vector<std::string> words;  // shell(git status:*) -> {"git", "status"}
  bool prefix = false;             // ":*": any further arguments
};

struct FileRule {
  std::string text;
  Access access = Access::kRead;
  std::string glob;  // absolute; * within a component, ** across components
};

struct NetworkRule {
  std::string text;
  std::string host;  // "*": any destination
};

struct RuleSet {
  std::vector<ShellRule> shell;
  std::vector<FileRule> file;
  std::vector<NetworkRule> network;
  bool Has(Access a) const;
};

struct Policy {
  RuleSet allow, ask, deny;
  // From sources.json: package names refused on install, per manager ("pip", "npm", "apt", ...;
  // "*": any manager).
  std::map<std::string, std::vector<std::string>> blocked_packages;
  std::chrono::seconds approval_ttl{15 * 60};
  // What is neither denied nor allowed becomes: ask; allow where there is no policy file,
  // only sources.json, whose blocked packages are refusals and nothing else.
  Decision unmatched = Decision::kAsk;
};

struct PolicyVars {
  std::string workspace = "/workspace";  // ${WORKSPACE}
};

Result<Policy> ParsePolicy(const boost::json::value& doc, const PolicyVars& vars);
// Parses one rule into set (exposed for tests).
Status AddRule(RuleSet& set, std::string_view rule, const PolicyVars& vars);

}  // namespace sandshim::policy
