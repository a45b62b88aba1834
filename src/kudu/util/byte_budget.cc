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

#include "kudu/util/byte_budget.h"

namespace kudu {

bool ByteBudget::TakeLocked(uint64_t n) {
  if (n > total_ - held_) return false;
  held_ += n;
  if (held_ > peak_) peak_ = held_;
  return true;
}

bool ByteBudget::TryAcquire(uint64_t n) {
  if (n > total_) return false;
  std::lock_guard<std::mutex> l(mu_);
  return TakeLocked(n);
}

bool ByteBudget::AcquireFor(uint64_t n, std::chrono::milliseconds timeout) {
  if (n > total_) return false;
  std::unique_lock<std::mutex> l(mu_);
  if (TakeLocked(n)) return true;
  if (freed_.wait_for(l, timeout, [&] { return n <= total_ - held_; })) {
    return TakeLocked(n);
  }
  return false;
}

void ByteBudget::Release(uint64_t n) {
  {
    std::lock_guard<std::mutex> l(mu_);
    held_ -= n;
  }
  freed_.notify_all();
}

uint64_t ByteBudget::held() const {
  std::lock_guard<std::mutex> l(mu_);
  return held_;
}

uint64_t ByteBudget::peak() const {
  std::lock_guard<std::mutex> l(mu_);
  return peak_;
}

}  // namespace kudu
