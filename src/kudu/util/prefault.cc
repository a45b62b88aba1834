// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

#include "kudu/util/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace kudu {

namespace {
uintptr_t PageSize() {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  return page;
}
void Touch(uintptr_t addr) { *reinterpret_cast<volatile uint8_t*>(addr) = 0; }
}  // namespace

namespace internal {
void TouchPages(void* p, size_t n) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t end = begin + n;
  for (uintptr_t a = begin; a < end; a = (a & ~(PageSize() - 1)) + PageSize()) Touch(a);
}
}  // namespace internal

void PrefaultForWrite(void* p, size_t n) {
  if (n == 0) return;
  const uintptr_t page = PageSize();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t end = begin + n;
  // madvise takes whole pages: those wholly inside the range. A partial
  // first or last page may hold another allocation's bytes, so it is made
  // present by a write inside the range instead.
  const uintptr_t first_full = (begin + page - 1) & ~(page - 1);
  const uintptr_t last_full = end & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  if (first_full < last_full &&
      ::madvise(reinterpret_cast<void*>(first_full), last_full - first_full,
                MADV_POPULATE_WRITE) == 0) {
    if (begin < first_full) Touch(begin);
    if (last_full < end) Touch(last_full);
    return;
  }
#endif
  internal::TouchPages(p, n);
}

}  // namespace kudu
