// CPU time of the whole process (every thread), as getrusage reports it:
// what the open's timing line and the benchmark report as user and sys.
#pragma once

namespace kudu {

struct CpuTimes {
  double user = 0;  // seconds
  double sys = 0;
};

CpuTimes ProcessCpuTimes();

}  // namespace kudu
