// The egress policy file (pure parser; unit-tested). The shape follows what agent platforms
// already write into their sandbox settings, so a profile can be reused as is:
//
//   {"network": {"allowedDomains": ["pypi.org", "*.pythonhosted.org"],
//                "blockedDomains": ["evil.com"],        (alias: "deniedDomains")
//                "allowedRegistries": ["npm", "pypi"],  (expanded to their hosts)
//                "allowPrivate": false,
//                "allowCidrs": ["10.1.2.0/24"],
//                "upstreamProxy": "http://proxy.corp:3128"}}
//
// The "network" object may also be the top level. Unknown keys are ignored (platforms add
// their own), but a known key with the wrong type is an error: a typo in a type must not
// silently widen or narrow the policy.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

struct EgressPolicy {
  std::vector<std::string> allowed_domains;
  std::vector<std::string> blocked_domains;
  std::vector<std::string> allowed_registries;
  std::vector<std::string> allow_cidrs;
  bool allow_private = false;
  std::string upstream_proxy;

  // allowed_domains plus the hosts of every allowed registry.
  std::vector<std::string> EffectiveAllow() const;
};

// npm, pypi, crates, go, maven, rubygems -> their hosts; an unknown name is an error.
Result<std::vector<std::string>> RegistryDomains(std::string_view name);
Result<EgressPolicy> ParsePolicy(std::string_view json_text);
// The policy as a policy file ({"network": {...}}): ParsePolicy(PolicyJson(p)) reads p back.
std::string PolicyJson(const EgressPolicy& p);
Result<EgressPolicy> LoadPolicy(const std::filesystem::path& file);

}  // namespace sandshim::net
