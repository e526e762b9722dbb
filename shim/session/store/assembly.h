// One sandbox assembly (#30): a session create, a pool claim and a context create are each a
// list of named steps run in order over one plan (the factory's own struct: what it decided
// up front and what each step hands the next). A step journals what it is about to make, then
// makes it, its host effects through the seam (host.h), so a failed step leaves the journal
// naming all that exists and the factory's rollback replays it. The list is the factory's
// outline: a reader scans it top to bottom; each step is a short function of its own.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

template <class Plan>
struct AssemblyStep {
  const char* name;  // what a trace and the tests call it
  Status (*run)(Plan&);
};

// Runs steps in order; the first error stops the list and is returned unchanged (the
// messages are the verbs' own). trace, when given, gets each step's name as it starts.
template <class Plan>
Status Assemble(std::span<const AssemblyStep<Plan>> steps, Plan& plan, std::vector<std::string>* trace = nullptr) {
  for (const auto& s : steps) {
    if (trace) trace->emplace_back(s.name);
    TRY(s.run(plan));
  }
  return Ok();
}

}  // namespace sandshim::session
