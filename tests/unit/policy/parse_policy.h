// The policy tests' one way to read a policy document (workspace /workspace).
#pragma once

#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "shim/policy/rules.h"

namespace sandshim::testing {

inline policy::Policy ParsePolicyDoc(const char* doc) {
  auto p = policy::ParsePolicy(boost::json::parse(doc), {.workspace = "/workspace"});
  REQUIRE(p.ok());
  return *p;
}

}  // namespace sandshim::testing
