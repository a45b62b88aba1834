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
#include "kudu/util/deferred_close.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace kudu {

namespace {

// One close_range(2) over [first, last]; false where the kernel (before
// Linux 5.9) or the headers do not have it, nothing closed then.
bool CloseRange(int first, int last) {
#ifdef SYS_close_range
  return ::syscall(SYS_close_range, static_cast<unsigned>(first), static_cast<unsigned>(last),
                   0U) == 0;
#else
  (void)first;
  (void)last;
  return false;
#endif
}

}  // namespace

size_t CloseDescriptors(std::vector<int>* fds) {
  fds->erase(std::remove(fds->begin(), fds->end(), -1), fds->end());
  std::sort(fds->begin(), fds->end());
  size_t calls = 0;
  size_t i = 0;
  while (i < fds->size()) {
    size_t j = i + 1;
    while (j < fds->size() && (*fds)[j] == (*fds)[j - 1] + 1) j++;
    if (j - i > 1) {
      calls++;
      if (CloseRange((*fds)[i], (*fds)[j - 1])) {
        i = j;
        continue;
      }
    }
    for (size_t k = i; k < j; k++) {
      ::close((*fds)[k]);
      calls++;
    }
    i = j;
  }
  fds->clear();
  return calls;
}

void DeferredCloser::Close(int fd) {
  if (fd < 0) return;
  std::vector<int> full;
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_.push_back(fd);
    if (pending_.size() < batch_) return;
    full.swap(pending_);
    pending_.reserve(batch_);
  }
  CloseDescriptors(&full);
}

void DeferredCloser::Flush() {
  std::vector<int> all;
  {
    std::lock_guard<std::mutex> l(mu_);
    all.swap(pending_);
  }
  CloseDescriptors(&all);
}

}  // namespace kudu
