// Runs a shell command and collects its output (stdout and stderr) and exit code: the CLI tests
// (axrun, axtrace) use it.
#pragma once

#include <string>

namespace axcore::runtime::testing_support {

struct Exec {
  int rc = -1;      // exit code, -1 when the command did not exit normally
  std::string out;  // stdout and stderr
};
Exec sh(const std::string& cmd);

}  // namespace axcore::runtime::testing_support
