// `list`: every container under --root, as a table, JSON, or ids only (-q).
#include <iomanip>
#include <iostream>

#include "shim/cli/verbs.h"
#include "shim/runtime/oci_state.h"

namespace sandshim::cli {

struct ListArgs {
  std::string format = "table";
  bool quiet = false;
};

void RegisterList(Verbs& v) {
  auto a = std::make_shared<ListArgs>();
  auto* sub = v.Add("list", "list containers", [&v, a] {
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    auto all = c->List();
    if (a->quiet) {
      for (const auto& r : all) std::cout << r.id << "\n";
    } else if (a->format == "json") {
      boost::json::array arr;
      for (const auto& r : all) arr.push_back(runtime::OciState(r));
      PrintJson(arr);
    } else {
      std::cout << std::left << std::setw(20) << "ID" << std::setw(10) << "PID" << std::setw(10) << "STATUS"
                << std::setw(10) << "BACKEND" << std::setw(40) << "BUNDLE" << "CREATED\n";
      for (const auto& r : all)
        std::cout << std::setw(20) << r.id << std::setw(10) << (r.status == runtime::ContainerStatus::kStopped ? 0 : r.init.pid)
                  << std::setw(10) << runtime::StatusName(r.status) << std::setw(10) << r.backend << std::setw(40)
                  << r.bundle.string() << r.created << "\n";
    }
    return 0;
  });
  sub->add_option("-f,--format", a->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  sub->add_flag("-q,--quiet", a->quiet, "print ids only");
}

}  // namespace sandshim::cli
