// Which control server a runsc's sandboxes have, found by asking one (never by its version):
// a sandbox is created and started (the platform probe's spec, sleeping), its socket looked
// for (a file in the runsc root, else the abstract name in the probe's private namespace),
// and ExecuteAsync (with GuestFDs) + WaitPID of /bin/true sent through it, as an exec would.
// Part of the probe (probe.h): once per runsc binary, cached with its verdict.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "shim/runsc/runsc_cli.h"

namespace sandshim::runsc {

struct ControlProbe {
  std::string protocol;  // kControlPath or kControlAbstract (control.h); empty: none works
  std::string why;       // when empty
  // The host uid the sandbox process (the Sentry) runs as, seen while it runs (-1: not seen).
  // 65534 is host nobody's, who can then stop or kill every sandbox (docs/RUNSC.md).
  int64_t sandbox_uid = -1;
};

// g: the probe's runsc, its private root (0700) and namespace, the platform that booted.
// bundle: a spec whose process stays up (the sandbox must be running to be asked).
ControlProbe ProbeControl(const Global& g, const std::filesystem::path& bundle, const std::string& id);

}  // namespace sandshim::runsc
