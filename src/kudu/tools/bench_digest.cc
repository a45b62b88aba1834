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

// The live set digest of `kudu fs bench`: what two opens must agree on.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "kudu/tools/bench_runner.h"
#include "kudu/util/mix64.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace tools {
namespace {

// FNV-1a, 64 bits.
class Fnv64 {
 public:
  void Add(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; i++) {
      h_ ^= b[i];
      h_ *= 0x100000001b3ULL;
    }
  }
  void Add(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(v >> (8 * i));
    Add(b, 8);
  }
  void Add(const std::string& s) {
    Add(s.size());
    Add(s.data(), s.size());
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};
}  // namespace

std::string LiveSetDigest::HashHex() const {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, hash);
  return buf;
}

std::string LiveSetDigest::ToString() const {
  return "hash " + HashHex() + ", " + std::to_string(live_blocks) + " live blocks, " +
         std::to_string(live_bytes) + " live bytes, " + std::to_string(containers) +
         " containers";
}

// Accumulates entries in any order: each entry is hashed on its own, and
// the entry hashes are combined by sum and xor, which do not depend on order.
// Not file-local: GeneratedDigester::Impl holds one.
class SetDigester {
 public:
  void Add(uint64_t id, uint64_t container_hash, uint64_t offset, uint64_t length) {
    uint64_t h = Mix64(id + 0x9e3779b97f4a7c15ULL);
    h = Mix64(h ^ container_hash);
    h = Mix64(h ^ offset);
    h = Mix64(h ^ length);
    sum_ += h;
    xor_ ^= Mix64(h + 1);
  }
  uint64_t value() const { return Mix64(sum_) ^ xor_; }
  // As if `o`'s entries had been added here.
  void Merge(const SetDigester& o) {
    sum_ += o.sum_;
    xor_ ^= o.xor_;
  }

 private:
  uint64_t sum_ = 0;
  uint64_t xor_ = 0;
};

namespace {

uint64_t HashString(const std::string& s) {
  Fnv64 h;
  h.Add(s);
  return h.value();
}

}  // namespace

LiveSetDigest DigestOfOpen(const fs::OpenResult& r) {
  LiveSetDigest d;
  std::vector<uint64_t> container_hash(r.containers.size());
  for (size_t i = 0; i < r.containers.size(); i++) {
    if (r.containers[i].counted()) d.containers++;
    container_hash[i] = HashString(r.containers[i].id);
  }
  if (r.block_map == nullptr) return d;
  SetDigester h;
  r.block_map->ForEach([&](uint64_t id, const fs::BlockMapEntry& e) {
    h.Add(id, container_hash[e.container], static_cast<uint64_t>(e.offset),
          static_cast<uint64_t>(e.length));
    d.live_blocks++;
    d.live_bytes += static_cast<uint64_t>(e.length);
  });
  d.hash = h.value();
  return d;
}

struct GeneratedDigester::Impl {
  SetDigester set;
  std::unordered_map<std::string, uint64_t> container_hash;
  LiveSetDigest digest;
};

GeneratedDigester::GeneratedDigester() : impl_(new Impl()) {}
GeneratedDigester::~GeneratedDigester() = default;

void GeneratedDigester::AddShards(const std::vector<tools::ShardLiveBlocks>& shards,
                                  int threads) {
  std::vector<Impl> parts(shards.size());
  ParallelFor("digest", shards.size(), threads, [&](size_t k) {
    Impl& part = parts[k];
    shards[k].ForEach([&part](const tools::GeneratedBlock& b) {
      auto it = part.container_hash.find(b.container_id);
      if (it == part.container_hash.end()) {
        it = part.container_hash.emplace(b.container_id, HashString(b.container_id)).first;
      }
      part.set.Add(b.id.id(), it->second, static_cast<uint64_t>(b.offset),
                   static_cast<uint64_t>(b.length));
      part.digest.live_blocks++;
      part.digest.live_bytes += static_cast<uint64_t>(b.length);
    });
  });
  for (const Impl& part : parts) {
    impl_->set.Merge(part.set);
    impl_->digest.live_blocks += part.digest.live_blocks;
    impl_->digest.live_bytes += part.digest.live_bytes;
  }
}

LiveSetDigest GeneratedDigester::Finish(uint64_t containers) const {
  LiveSetDigest d = impl_->digest;
  d.containers = containers;
  d.hash = impl_->set.value();
  return d;
}

}  // namespace tools
}  // namespace kudu
