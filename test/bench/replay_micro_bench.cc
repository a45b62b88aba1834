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

// Micro-benchmarks of the replay hot path (Google Benchmark): the in-memory
// record loop (frame + CRC + parse + apply) per record, CRC-32C by buffer
// size, AES-CTR throughput, block-map inserts, the open's block-map merge
// (locked inserts vs per-shard batches), a container's live set (the sorted
// vector while ids ascend vs the hash map it falls back to), the floor's
// whole-file CRC, and the least work any replay adds to the floor beside
// what this one adds (BM_LeastWorkAboveTheFloor). Run:
//   build/bin/replay_micro_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "kudu/fs/block_map.h"
#include "kudu/fs/block_record_parser.h"
#include "kudu/fs/buffer_record_source.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/zero_rule.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/encryption.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_writer.h"

namespace kudu {
namespace fs {
namespace {

// A metadata file image of `n` records, in memory: every `delete_every`th
// record a DELETE of an earlier block (2 CREATEs per DELETE by default),
// block ids from `first_id` up.
std::string MetadataImage(int n, int delete_every = 3, uint64_t first_id = 1000000) {
  std::string file;
  pb_container::AppendFileHeader(2, &file);
  pb_container::AppendRecord(2, PbContainerWriter::SupplementalHeader(BlockRecordPB::descriptor()),
                             &file);
  std::vector<uint64_t> live;
  int64_t offset = 0;
  uint64_t id = first_id;
  BlockRecordPB r;
  for (int i = 0; i < n; i++) {
    r.Clear();
    if (i % delete_every == delete_every - 1) {
      r.mutable_block_id()->set_id(live[i / delete_every]);
      r.set_op_type(DELETE);
      r.set_timestamp_us(1700000000000000ULL + i);
    } else {
      r.mutable_block_id()->set_id(id);
      live.push_back(id++);
      r.set_op_type(CREATE);
      r.set_timestamp_us(1700000000000000ULL + i);
      r.set_offset(offset);
      r.set_length(1000 + i % 5000);
      offset += 8192;
    }
    pb_container::AppendRecord(2, r.SerializeAsString(), &file);
  }
  return file;
}

void BM_InMemoryRecordLoop(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string image = MetadataImage(n);
  const std::string name = "bench.metadata";
  BlockRecordPB scratch;
  for (auto _ : state) {
    ContainerReplayState cs(1ULL << 50, 0, 4096);
    BufferRecordSource src(name, reinterpret_cast<const uint8_t*>(image.data()), 0, image.size());
    ReplayOutcome out = ReplayRecordsFrom(&src, &scratch, &cs);
    if (!out.clean()) state.SkipWithError("replay failed");
    benchmark::DoNotOptimize(cs.live_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * image.size());
}
BENCHMARK(BM_InMemoryRecordLoop)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// What every container costs before its first record: the file header and
// the supplemental header (the record type's name and its FileDescriptorSet).
// Arg 0: the same header every time, as an open sees it (the reader skips
// parsing bytes it has accepted); arg 1: two record types in turn, so that
// every call parses.
void BM_ReadHeaders(benchmark::State& state) {
  const std::string name = "bench.metadata";
  std::string images[2];
  std::string types[2] = {BlockRecordTypeName(), BlockIdPB::descriptor()->full_name()};
  for (int k = 0; k < 2; k++) {
    pb_container::AppendFileHeader(2, &images[k]);
    const google::protobuf::Descriptor* d =
        k == 0 ? BlockRecordPB::descriptor() : BlockIdPB::descriptor();
    pb_container::AppendRecord(2, PbContainerWriter::SupplementalHeader(d), &images[k]);
  }
  const bool alternate = state.range(0) != 0;
  size_t k = 0;
  for (auto _ : state) {
    if (alternate) k ^= 1;
    BufferRecordSource src(name, reinterpret_cast<const uint8_t*>(images[k].data()), 0,
                           images[k].size());
    PbContainerRecordReader<BufferRecordSource> reader(&src);
    if (!reader.ReadHeaders(types[k]).ok()) state.SkipWithError("headers");
  }
}
BENCHMARK(BM_ReadHeaders)->Arg(0)->Arg(1);

// Parse alone, to separate protobuf decoding from framing and the map.
void BM_ParseBlockRecord(benchmark::State& state) {
  BlockRecordPB r;
  r.mutable_block_id()->set_id(123456789);
  r.set_op_type(CREATE);
  r.set_timestamp_us(1700000000000000ULL);
  r.set_offset(1 << 30);
  r.set_length(4000);
  const std::string body = r.SerializeAsString();
  BlockRecordPB fallback;
  BlockRecord out;
  for (auto _ : state) {
    bool ok = ParseBlockRecord(body, &fallback, &out);
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseBlockRecord);

void BM_Crc32c(benchmark::State& state) {
  std::string buf(state.range(0), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(crc::Crc32c(buf.data(), buf.size()));
  state.SetBytesProcessed(state.iterations() * buf.size());
}
BENCHMARK(BM_Crc32c)->Arg(4)->Arg(32)->Arg(256)->Arg(4096)->Arg(1 << 20);

void BM_Crc32cSoftware(benchmark::State& state) {
  std::string buf(state.range(0), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(crc::Crc32cSoftware(0, buf.data(), buf.size()));
  state.SetBytesProcessed(state.iterations() * buf.size());
}
BENCHMARK(BM_Crc32cSoftware)->Arg(32)->Arg(4096)->Arg(1 << 20);

void BM_AesCtrWholeBuffer(benchmark::State& state) {
  CipherAlgorithm alg = static_cast<CipherAlgorithm>(state.range(1));
  std::string key(FileKeySize(alg), 'k');
  std::unique_ptr<FileCipher> cipher;
  if (!FileCipher::Create(alg, key, &cipher).ok()) state.SkipWithError("cipher");
  std::vector<uint8_t> buf(state.range(0), 1);
  for (auto _ : state) {
    (void)cipher->Crypt(64, buf.data(), buf.data(), buf.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * buf.size());
}
BENCHMARK(BM_AesCtrWholeBuffer)->Args({4 << 20, 0})->Args({4 << 20, 1})->Args({4 << 20, 2});

// The other pass an encrypted file's in-memory replay makes before parsing:
// indexing the runs of zero ciphertext (the all-zero rule), over bytes that
// look like ciphertext (random; a zero 16-bit lane every 64 KiB or so).
void BM_ZeroRunIndexBuild(benchmark::State& state) {
  std::vector<uint8_t> buf(state.range(0));
  std::mt19937_64 rng(5);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  ZeroRunIndex index;
  for (auto _ : state) {
    index.Build(buf.data(), buf.size(), 64);
    benchmark::DoNotOptimize(index);
  }
  state.SetBytesProcessed(state.iterations() * buf.size());
}
BENCHMARK(BM_ZeroRunIndexBuild)->Arg(4 << 20);

// What the per-read reference pays: one cipher setup per ~40-byte record.
void BM_AesCtrPerRecord(benchmark::State& state) {
  std::string key(16, 'k');
  std::unique_ptr<FileCipher> cipher;
  if (!FileCipher::Create(CipherAlgorithm::kAes128Ctr, key, &cipher).ok()) state.SkipWithError("cipher");
  uint8_t buf[40] = {1};
  uint64_t off = 64;
  for (auto _ : state) {
    (void)cipher->Crypt(off, buf, buf, sizeof(buf));
    off += sizeof(buf);
  }
  state.SetBytesProcessed(state.iterations() * sizeof(buf));
}
BENCHMARK(BM_AesCtrPerRecord);

void BM_BlockMapInsert(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::mt19937_64 rng(1);
  std::vector<uint64_t> ids(n);
  for (auto& id : ids) id = rng();
  for (auto _ : state) {
    absl::flat_hash_map<uint64_t, BlockLocation> map;
    map.reserve(n);
    for (uint64_t id : ids) map.try_emplace(id, BlockLocation{1, 2});
    benchmark::DoNotOptimize(map.size());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_BlockMapInsert)->Arg(100000)->Arg(10000000)->Unit(benchmark::kMillisecond);

// What the open does to merge into the server's block map: each container's
// live blocks, sorted by id, are inserted from their own array run by run
// (no copy into the batch), over a map reserved for every block.
std::vector<LiveBlock> MergeBlocks(int64_t n) {
  std::mt19937_64 rng(2);
  std::vector<LiveBlock> blocks(n);
  uint64_t id = rng() >> 20;
  for (auto& b : blocks) {
    id += 1 + rng() % 4;  // increasing with gaps: other containers' blocks
    b = LiveBlock{id, BlockLocation{4096, 100}};
  }
  return blocks;
}

void BM_BlockMapMergeSorted(benchmark::State& state) {
  const std::vector<LiveBlock> blocks = MergeBlocks(state.range(0));
  fs::BlockMap::Batch batch;
  std::vector<fs::BlockMap::Rejected> rejected;
  constexpr size_t kContainer = 25000;
  for (auto _ : state) {
    fs::BlockMap map;
    map.Reserve(blocks.size());
    for (size_t i = 0; i < blocks.size(); i += kContainer) {
      batch.AddSorted(7, blocks.data() + i, std::min(kContainer, blocks.size() - i));
      if (batch.size() >= (1 << 16)) map.InsertBatch(&batch, &rejected);
    }
    map.InsertBatch(&batch, &rejected);
    benchmark::DoNotOptimize(map.size());
  }
  state.SetItemsProcessed(state.iterations() * blocks.size());
}
BENCHMARK(BM_BlockMapMergeSorted)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// The benchmark's floor per byte: CRC-32C over a whole metadata file in
// memory (the floor also reads it, once).
void BM_FloorCrcWholeFile(benchmark::State& state) {
  const std::string image = MetadataImage(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc::Crc32c(image.data(), image.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * image.size());
}
BENCHMARK(BM_FloorCrcWholeFile)->Arg(100000);

// How far above the floor any replay has to be, on one thread, over
// G1-100k's shape (4 files of 30,556 records, one DELETE in 11, 4.8 MiB in
// all): every mode copies each file once, as a read from the page cache
// does. Arg 0: the floor (that copy and CRC-32C over it). 1: the floor and
// a parse of every record (the parser's fast path, from offsets found
// beforehand: no framing, no per-record checks). 2: that, every CREATE
// appended to an array (no DELETE applied, no record semantics) and the
// array merged into the server's block map as the open merges: the least a
// replay that leaves a block map can do. 3: the replay itself (framing,
// both checksums of every record, parse, record semantics, live set) and
// the same merge, with no whole-file CRC. The block map is reserved and
// made present first in the modes that build one, as the open does.
void BM_LeastWorkAboveTheFloor(benchmark::State& state) {
  constexpr int kFiles = 4;
  constexpr int kRecordsPerFile = 30556;
  const int mode = static_cast<int>(state.range(0));
  const std::string name = "bench.metadata";
  std::string images[kFiles];
  std::vector<std::pair<size_t, size_t>> bodies[kFiles];  // offset, size
  BlockRecordPB scratch;
  size_t max_size = 0, records = 0, bytes = 0;
  for (int f = 0; f < kFiles; f++) {
    images[f] = MetadataImage(kRecordsPerFile, 11, 1000000 + f * 100000ULL);
    const uint8_t* image = reinterpret_cast<const uint8_t*>(images[f].data());
    BufferRecordSource src(name, image, 0, images[f].size());
    ForEachBlockRecord(&src, &scratch, [&](const BlockRecord&, uint64_t, Slice body) {
      bodies[f].emplace_back(static_cast<size_t>(body.data() - image), body.size());
    });
    max_size = std::max(max_size, images[f].size());
    records += bodies[f].size();
    bytes += images[f].size();
  }
  std::unique_ptr<uint8_t[]> buf(new uint8_t[max_size]);
  BlockMap::Batch batch;
  std::vector<BlockMap::Rejected> rejected;
  for (auto _ : state) {
    std::unique_ptr<BlockMap> map;
    if (mode >= 2) {
      map.reset(new BlockMap());
      map->Reserve(records);
      map->Allocate();
    }
    for (int f = 0; f < kFiles; f++) {
      const size_t size = images[f].size();
      std::memcpy(buf.get(), images[f].data(), size);
      if (mode <= 2) benchmark::DoNotOptimize(crc::Crc32c(buf.get(), size));
      LiveBlocks live;
      if (mode == 1 || mode == 2) {
        if (mode == 2) live.reserve(bodies[f].size());
        uint64_t parsed = 0, sum = 0;
        for (const auto& b : bodies[f]) {
          BlockRecord r;
          parsed += ParseBlockRecord(Slice(buf.get() + b.first, b.second), &scratch, &r);
          sum += r.block_id + static_cast<uint64_t>(r.offset + r.length);
          if (mode == 2 && r.op_type == CREATE) {
            live.push_back(LiveBlock{r.block_id, BlockLocation{r.offset, r.length}});
          }
        }
        if (parsed != bodies[f].size()) state.SkipWithError("a record did not parse");
        benchmark::DoNotOptimize(sum);
      } else if (mode == 3) {
        ContainerReplayState cs(1ULL << 50, 0, 4096);
        cs.Reserve(bodies[f].size());
        BufferRecordSource src(name, buf.get(), 0, size);
        if (!ReplayRecordsFrom(&src, &scratch, &cs).clean()) state.SkipWithError("replay failed");
        live = cs.TakeLiveBlocks();
      }
      if (mode >= 2) {
        batch.AddSorted(static_cast<uint32_t>(f), live.data(), live.size());
        map->InsertBatch(&batch, &rejected);
      }
    }
    if (map != nullptr) benchmark::DoNotOptimize(map->size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}
BENCHMARK(BM_LeastWorkAboveTheFloor)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// A container's live set under the workload a server writes: CREATEs with
// ascending ids (gaps: other containers' blocks). Arg 1 = 0: one DELETE of
// a random earlier block per 9 CREATEs; 1: the same with the CREATE ids
// shuffled, which makes the set use its hash map from the first
// out-of-order id (the cost the sorted vector saves); 2: a server that
// deletes nearly all it writes (the S1 shape: 99.99 % deleted, each DELETE
// a random block still live), where the vector stays a few hundred slots
// and every DELETE searches it; 3: no DELETE, and the set handed over
// (TakeSorted) as a replay's end does: a container holding millions of
// live blocks, whose oldest slots are packed and widened again; 4: one
// container of a server that deletes 99 % of its blocks at random among
// every container's (the 1,000 x 5,000 state of docs/benchmarks.md), whose
// set grows to a few thousand slots that its DELETEs search.
void BM_LiveBlockSet(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const int mode = static_cast<int>(state.range(1));
  std::mt19937_64 rng(11);
  std::vector<uint64_t> ids(n);
  uint64_t id = rng() >> 24;
  for (auto& v : ids) v = (id += 1 + rng() % 4);
  if (mode == 1) std::shuffle(ids.begin(), ids.end(), rng);
  // Per CREATE i, the index into ids of the blocks deleted right after it.
  std::vector<std::vector<size_t>> deletes(n);
  size_t records = n;
  if (mode == 2) {
    std::vector<size_t> live;
    size_t deleted = 0;
    for (size_t i = 0; i < n; i++) {
      live.push_back(i);
      const size_t due = (i + 1) * 9999 / 10000;
      while (deleted < due && !live.empty()) {
        const size_t k = rng() % live.size();
        deletes[i].push_back(live[k]);
        live[k] = live.back();
        live.pop_back();
        deleted++;
      }
    }
    records += deleted;
  } else if (mode == 4) {
    // One container of a server that deletes 99 % of what it writes, at
    // random among every container's live blocks (the generator's
    // --deleted_block_percentage=99 state): 1,000 containers of n blocks
    // written one after another, this one the 500th. Its live set grows to
    // most of its blocks while it is written and decays long after, so a
    // DELETE searches a few thousand slots. The DELETEs that come after its
    // last CREATE follow it, as they do in its metadata file.
    constexpr size_t kContainers = 1000, kMine = 500;
    std::vector<std::pair<size_t, size_t>> live;  // (container, index)
    uint64_t deleted = 0;
    const uint64_t total = kContainers * n;
    for (uint64_t c = 0; c < total; c++) {
      live.emplace_back(c / n, c % n);
      const uint64_t due = (c + 1) * 99 / 100;
      while (deleted < due) {
        const size_t k = rng() % live.size();
        if (live[k].first == kMine) deletes[c / n == kMine ? c % n : n - 1].push_back(live[k].second);
        live[k] = live.back();
        live.pop_back();
        deleted++;
      }
    }
    for (const auto& d : deletes) records += d.size();
  } else if (mode != 3) {
    for (size_t i = 9; i < n; i += 9) deletes[i - 1].push_back(rng() % i);
    records += n / 9;
  }
  for (auto _ : state) {
    LiveBlockSet set;
    set.Reserve(n);
    BlockLocation erased;
    for (size_t i = 0; i < n; i++) {
      set.Insert(ids[i], BlockLocation{static_cast<int64_t>(i) * 4096, 100});
      for (size_t v : deletes[i]) set.Erase(ids[v], &erased);
    }
    benchmark::DoNotOptimize(set.size());
    if (mode == 3) {
      LiveBlocks taken = set.TakeSorted();
      benchmark::DoNotOptimize(taken.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
}
BENCHMARK(BM_LiveBlockSet)
    ->Args({30000, 0})
    ->Args({30000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Args({1000000, 2})
    ->Args({2000000, 3})
    ->Args({5000, 4})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fs
}  // namespace kudu

BENCHMARK_MAIN();
