// sandshim: one binary, runc's command line, gVisor (or namespaces) underneath.
#include "shim/cli/verbs.h"
#include "shim/core/proc.h"
#include "shim/core/self_clone.h"

int main(int argc, char** argv, char** envp) {
  sandshim::proc::OpenMissingStdio();
  sandshim::RememberArgv(argc, argv, envp);
  return sandshim::cli::Main(argc, argv);
}
