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

// A byte-weighted semaphore: the process-wide memory budget shared by every
// replay thread of every data dir. A holder asks for as many bytes as its
// buffer needs before allocating it and gives them back after freeing it, so
// the bytes held by replay buffers at once never exceed the budget.
//
// Deadlock freedom rests on two rules the callers keep: a request larger than
// the whole budget is refused at once (never queued), and no thread waits for
// a grant while holding another one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace kudu {

class ByteBudget {
 public:
  explicit ByteBudget(uint64_t total_bytes) : total_(total_bytes) {}

  // Takes `n` bytes if they are free now.
  bool TryAcquire(uint64_t n);
  // Waits up to `timeout` for `n` bytes. False at once if n > total().
  bool AcquireFor(uint64_t n, std::chrono::milliseconds timeout);
  void Release(uint64_t n);

  uint64_t total() const { return total_; }
  uint64_t held() const;
  // The most bytes ever held at once.
  uint64_t peak() const;

 private:
  bool TakeLocked(uint64_t n);

  const uint64_t total_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  uint64_t held_ = 0;
  uint64_t peak_ = 0;
};

// Holds a grant for its lifetime.
class ByteBudgetGrant {
 public:
  ByteBudgetGrant() = default;
  ByteBudgetGrant(ByteBudget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
  ~ByteBudgetGrant() { Reset(); }
  ByteBudgetGrant(ByteBudgetGrant&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) {
    o.budget_ = nullptr;
    o.bytes_ = 0;
  }
  ByteBudgetGrant& operator=(ByteBudgetGrant&& o) noexcept {
    if (this != &o) {
      Reset();
      budget_ = o.budget_;
      bytes_ = o.bytes_;
      o.budget_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  ByteBudgetGrant(const ByteBudgetGrant&) = delete;
  ByteBudgetGrant& operator=(const ByteBudgetGrant&) = delete;

  void Reset() {
    if (budget_ != nullptr && bytes_ > 0) budget_->Release(bytes_);
    budget_ = nullptr;
    bytes_ = 0;
  }
  uint64_t bytes() const { return bytes_; }
  // Takes the bytes up to `n` more if they are free now (never waits).
  bool TryGrowTo(uint64_t n) {
    if (n <= bytes_) return true;
    if (budget_ == nullptr || !budget_->TryAcquire(n - bytes_)) return false;
    bytes_ = n;
    return true;
  }
  // Gives back what the grant holds beyond `n`.
  void ShrinkTo(uint64_t n) {
    if (budget_ == nullptr || n >= bytes_) return;
    budget_->Release(bytes_ - n);
    bytes_ = n;
  }

 private:
  ByteBudget* budget_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace kudu
