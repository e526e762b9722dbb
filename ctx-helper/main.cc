// sandshim-ctx: see helper.h.
#include <arpa/inet.h>

#include <cstdlib>
#include <string>

#include "ctx-helper/fdpass.h"
#include "ctx-helper/helper.h"

using namespace sandshim::ctx;

// "PORT=ADDR:PORT"
static bool ParseForward(const std::string& s, Forward& f) {
  auto eq = s.find('='), colon = s.rfind(':');
  if (eq == std::string::npos || colon == std::string::npos || colon < eq) return false;
  int lp = std::atoi(s.substr(0, eq).c_str()), tp = std::atoi(s.substr(colon + 1).c_str());
  if (lp <= 0 || lp > 65535 || tp <= 0 || tp > 65535) return false;
  f.listen_port = static_cast<uint16_t>(lp);
  f.target.sin_family = AF_INET;
  f.target.sin_port = htons(static_cast<uint16_t>(tp));
  return ::inet_pton(AF_INET, s.substr(eq + 1, colon - eq - 1).c_str(), &f.target.sin_addr) == 1;
}

int main(int argc, char** argv) {
  std::string verb = argc > 1 ? argv[1] : "";
  if (verb == "init") {
    Forward f;
    uint64_t caps = 0;
    bool ok = true;
    for (int i = 2; i < argc && ok; ++i) {
      std::string a = argv[i];
      if (a == "--init-caps" && i + 1 < argc) {
        char* end = nullptr;
        caps = std::strtoull(argv[++i], &end, 16);
        ok = *end == '\0';
      } else if (a == "--forward" && i + 1 < argc) ok = ParseForward(argv[++i], f);
      else ok = false;
    }
    if (ok) return RunInit(f, caps);
  }
  Say("usage: sandshim-ctx init [--init-caps HEXMASK] [--forward PORT=ADDR:PORT]");
  return 125;
}
