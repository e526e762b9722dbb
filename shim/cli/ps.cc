// `ps`: the container's processes. --format json prints host pids (for gVisor, the sandbox
// process that holds them all); the table is the backend's own view.
#include <iostream>

#include "shim/cli/verbs.h"

namespace sandshim::cli {

struct PsArgs {
  std::string id, format = "table";
  std::vector<std::string> ps_args;
};

void RegisterPs(Verbs& v) {
  auto a = std::make_shared<PsArgs>();
  auto* sub = v.Add("ps", "list the processes of a container", [&v, a] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    if (a->format == "json") {
      auto pids = c->Pids(a->id);
      if (!pids) return ExitWith(Status(pids.error()));
      boost::json::array arr;
      for (pid_t p : *pids) arr.emplace_back(p);
      PrintJson(arr);
      return 0;
    }
    auto table = c->PsTable(a->id);
    if (!table) return ExitWith(Status(table.error()));
    std::cout << *table;
    return 0;
  });
  sub->add_option("-f,--format", a->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  sub->add_option("id", a->id, "container id")->required();
  sub->add_option("ps-args", a->ps_args, "ignored");
}

}  // namespace sandshim::cli
