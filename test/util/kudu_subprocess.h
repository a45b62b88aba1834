// Running the `kudu` program (or any program) as a subprocess, the way an
// operator or an outside check does, with its output captured.
#pragma once

#include <string>
#include <vector>

#include "util/test_util.h"

namespace kudu {
namespace test {

// $KUDU_BIN (set by ctest), else the kudu next to the running test binary
// (both live in <build>/bin/).
std::string KuduBinary();

struct RunResult {
  int exit_status = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

// Runs `program args...` (looked up on $PATH), stdout and stderr captured
// through files in `tmp`.
RunResult RunProgram(const TempDir& tmp, const std::string& program,
                     const std::vector<std::string>& args);
RunResult RunKudu(const TempDir& tmp, const std::vector<std::string>& args);

// "exit N / stdout / stderr", for assertion messages.
std::string Describe(const RunResult& r);

}  // namespace test
}  // namespace kudu
