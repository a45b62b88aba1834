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

// SeededRandom: a small, fully specified pseudo-random generator.
//
// Generated data dirs must be byte-identical for the same seed on every
// machine and standard library, so neither std::mt19937 with the
// implementation-defined std::*_distribution nor OpenSSL's RAND_bytes will
// do. SplitMix64 is specified by its few lines here, fast enough to fill
// block payloads, and good enough for workloads (not for keys that protect
// anything: a seeded file key is a test fixture, see ContainerWriterOptions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace kudu {
namespace fs {

class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}

  uint64_t Next64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n) for n > 0 (Lemire's multiply-shift; the tiny bias for
  // huge n does not matter for workloads, and the result is the same
  // everywhere, which does).
  uint64_t Uniform(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next64()) * n) >> 64);
  }

  // Uniform in [0, 1).
  double NextDouble() { return static_cast<double>(Next64() >> 11) * (1.0 / 9007199254740992.0); }

  void Fill(uint8_t* buf, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t v = Next64();
      std::memcpy(buf + i, &v, 8);
    }
    if (i < n) {
      uint64_t v = Next64();
      std::memcpy(buf + i, &v, n - i);
    }
  }

  std::string Bytes(size_t n) {
    std::string s(n, '\0');
    Fill(reinterpret_cast<uint8_t*>(&s[0]), n);
    return s;
  }

  // A derived generator whose stream does not overlap this one's in practice
  // (so independent parts of a workload can draw without disturbing each
  // other's sequence).
  SeededRandom Fork() { return SeededRandom(Next64() ^ 0x5851f42d4c957f2dULL); }

 private:
  uint64_t state_;
};

}  // namespace fs
}  // namespace kudu
