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


// Holds back the replay threads of a data dir beyond its first wave until
// they are needed. A warm open is CPU-bound: on a machine with fewer CPUs
// than replay threads the extra threads only take turns, each switch a
// wake-up, a futex and a reschedule, and even threads that wait idle cost
// their creation and their wake-up at the end (docs/benchmarks.md measures
// it). A cold open needs every thread to overlap its I/O waits, so the gate
// opens for good as soon as the open does not look warm, and starts the
// rest. When the dir's queue runs out with the gate still closed, the rest
// are dismissed: they never start, and nothing waits for them.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <utility>

namespace kudu {
namespace fs {

class ReplayThreadGate {
 public:
  // `threads` in the dir's pool, the first `first_wave` started by the
  // caller; `start_rest` starts the others (once, from Open()).
  ReplayThreadGate(int threads, int first_wave, std::function<void()> start_rest)
      : threads_(threads), first_wave_(first_wave), start_rest_(std::move(start_rest)) {}
  ReplayThreadGate(const ReplayThreadGate&) = delete;
  ReplayThreadGate& operator=(const ReplayThreadGate&) = delete;

  int first_wave() const { return first_wave_; }

  // Starts the rest, unless they were started or dismissed already.
  // Thread-safe; returns once they are started.
  void Open() {
    if (Leave(State::kOpen) && threads_ > first_wave_) start_rest_();
  }

  // The dir's queue ran out: the rest are not needed. Returns how many
  // threads that dismissed: those beyond the first wave if the gate was
  // still closed, else 0 (they were started, or dismissed already).
  int Dismiss() { return Leave(State::kDismissed) ? threads_ - first_wave_ : 0; }

  // Neither opened nor dismissed yet: a load, for the check after every
  // container.
  bool closed() const { return state_.load(std::memory_order_acquire) == State::kClosed; }

 private:
  enum class State { kClosed, kOpen, kDismissed };

  // Moves a closed gate to `to`; false when it was not closed.
  bool Leave(State to) {
    State expected = State::kClosed;
    return state_.compare_exchange_strong(expected, to, std::memory_order_acq_rel);
  }

  const int threads_;
  const int first_wave_;
  const std::function<void()> start_rest_;
  std::atomic<State> state_{State::kClosed};
};

}  // namespace fs
}  // namespace kudu
