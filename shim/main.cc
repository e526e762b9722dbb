// sandshim: one binary, runc's command line, gVisor (or namespaces) underneath.
#include "shim/cli/verbs.h"

int main(int argc, char** argv) { return sandshim::cli::Main(argc, argv); }
