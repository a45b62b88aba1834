#include "kudu/util/process_cpu_times.h"

#include <sys/resource.h>

namespace kudu {

CpuTimes ProcessCpuTimes() {
  struct rusage ru;
  CpuTimes t;
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    t.user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    t.sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  }
  return t;
}

}  // namespace kudu
