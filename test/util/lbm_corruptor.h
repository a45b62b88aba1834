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
// A corruption injector for tests: it takes a real data dir (written by the
// server's own writer), learns its containers record by record, and breaks
// them on purpose, the way crashes, bad disks and bugs do. Each injection
// says exactly what it did (container, file, raw offset, block id), so a test
// can assert the report line for line.
//
// The kinds follow upstream Kudu's LBMCorruptor
// (fs/log_block_manager-test-util.cc): preallocated extra space in a full
// container, an unpunched dead block, incomplete containers, malformed
// records, misaligned blocks, partial records. Then the project's own: a
// flipped checksum, a damaged header, a zero tail, a hostile length, the same
// id live in two containers, a missing data or metadata file, and, in
// encrypted dirs only, a data file cut below or damaged in its encryption
// header. Every other kind works on plain and encrypted dirs: records are appended through the
// project's writer (which encrypts at the right offset), raw bytes are
// changed in place (AES-CTR maps a flipped ciphertext bit to the same
// plaintext bit).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

namespace kudu {
namespace test {

enum class Damage {
  // Non-fatal; a repair fixes them (misaligned blocks: reported, nothing to fix).
  kPreallocatedExtraSpace,
  kUnpunchedDeadBlock,
  kIncompleteContainer,
  kMisalignedBlock,
  kPartialRecord,
  // Fatal.
  kMalformedRecord,
  kChecksumFlip,
  kDamagedHeader,
  kHostileLength,
  kDuplicateLiveId,
  kMissingDataFile,
  kMissingMetadataFile,
  // Encrypted dirs only: a data file cut below its 64-byte encryption header
  // (0 to 63 bytes left), or whose header has a bad magic or algorithm.
  kShortDataFile,
  kDamagedDataFileHeader,
  // Non-fatal: zeros after the last record (a torn append whose size reached
  // disk before its data), read as a partial record.
  kZeroTail,
};
const char* DamageName(Damage d);

// The malformed-record reasons of the format (§4.2), one record each.
enum class MalformedKind {
  kMissingOffset,
  kMissingLength,
  kNegativeOffset,
  kNegativeLength,
  kOffsetLengthOverflow,
  kPastEndOfData,
  kDuplicateCreate,
  kDeleteNotLive,
  kUnknownOpType,
};
constexpr int kNumMalformedKinds = 9;
// The `reason` the report gives for `k`.
const char* MalformedReason(MalformedKind k);

// The shapes a crash while creating a container leaves (§4.1).
enum class IncompleteKind {
  kEmptyDataOnly,           // <id>.data of 0 bytes (or only a header), no metadata
  kShortMetadataOnly,       // a metadata file shorter than a file header, no data
  kEmptyDataShortMetadata,  // both, the metadata short
  kHeadersOnlyNoData,       // a metadata file with its headers and no record, no data
  kDeadRecordsNoData,       // CREATE+DELETE pairs only, no data (a dead container half deleted)
};
constexpr int kNumIncompleteKinds = 5;

// Where a partial trailing record is torn.
enum class PartialKind {
  kInLengthField,  // fewer than 8 bytes of the frame
  kInBody,         // the frame's length runs past the end
  kZeroedFrame,    // the last record's bytes all zero (size reached disk, data did not)
};
constexpr int kNumPartialKinds = 3;

// Which header a kDamagedHeader breaks.
enum class HeaderPart {
  kEncryptionHeader,  // encrypted files only: the "kuduenc" magic
  kMagic,
  kVersion,
  kHeaderChecksum,
  kSupplementalHeader,  // its body checksum
};
constexpr int kNumHeaderParts = 5;

// Which field of a data file's encryption header kDamagedDataFileHeader breaks.
enum class DataHeaderPart {
  kMagic,      // a byte of "kuduenc"
  kAlgorithm,  // byte 7, made an unknown algorithm
};
constexpr int kNumDataHeaderParts = 2;

struct Injected {
  Damage damage;
  std::string container;  // <root>/data/<id>, as the report names it
  std::string file;       // the file changed (or removed, or created)
  uint64_t offset = 0;    // raw offset of the damaged record or header; excess bytes for extra space
  uint64_t block_id = 0;  // the block the damage is about, when there is one
  int variant = 0;        // the MalformedKind/IncompleteKind/PartialKind/HeaderPart used
};

class LbmCorruptor {
 public:
  struct Options {
    std::vector<std::string> roots;
    const ServerKey* server_key = nullptr;  // the dir is encrypted when set
    // A container is full when its next block offset reaches this, or its
    // CREATE count reaches max_container_blocks (> 0), as §4.3 says.
    uint64_t max_container_size = 10ULL << 30;
    int64_t max_container_blocks = -1;
    uint32_t seed = 1;
  };

  explicit LbmCorruptor(Options opts);

  // Reads every container of every root (their files must be clean: written
  // by the writer). Containers made after Init are not seen.
  Status Init();

  // Upstream's kinds. Containers are chosen at random (full ones where the
  // kind needs a full container; IllegalState when there is none).
  Status PreallocateFullContainer(Injected* out = nullptr);
  Status AddUnpunchedBlockToFullContainer(Injected* out = nullptr);
  Status CreateIncompleteContainer(IncompleteKind kind, Injected* out = nullptr);
  Status AddMalformedRecord(MalformedKind kind, Injected* out = nullptr);
  Status AddMisalignedBlock(Injected* out = nullptr);
  // After it the container takes no further damage (nothing can follow a
  // partial record), as upstream's corruptor does.
  Status AddPartialRecord(PartialKind kind, Injected* out = nullptr);
  // One of the non-fatal kinds above, chosen at random among those possible.
  Status InjectRandomNonFatalInconsistency(Injected* out = nullptr);

  // The project's kinds.
  Status FlipRecordChecksum(Injected* out = nullptr);  // a record with records after it
  Status DamageHeader(HeaderPart part, Injected* out = nullptr);
  Status AppendZeroTail(uint64_t bytes, Injected* out = nullptr);
  // A record with records after it gets a length that runs past the end of
  // the file, with a matching length checksum: damage, never a torn write.
  Status SetHostileLength(Injected* out = nullptr);
  // A CREATE, in another container, of an id live in a first one.
  Status DuplicateLiveId(Injected* out = nullptr);
  Status RemoveDataFile(Injected* out = nullptr);
  Status RemoveMetadataFile(Injected* out = nullptr);
  // Encrypted dirs only (IllegalState otherwise): a data file truncated to
  // `size` raw bytes (below 64), or its encryption header damaged. The
  // offset recorded is the encryption header's, 0.
  Status TruncateDataFileBelowHeader(uint64_t size, Injected* out = nullptr);
  Status DamageDataFileHeader(DataHeaderPart part, Injected* out = nullptr);

  // Everything injected so far, in order.
  const std::vector<Injected>& injected() const { return injected_; }
  // Live blocks id → (container id, offset, length) the dirs hold now, as a
  // correct open sees them (misaligned blocks included, damaged containers'
  // blocks as far as a replay keeps them). Only meaningful while every
  // injection was non-fatal.
  std::map<uint64_t, std::tuple<std::string, int64_t, int64_t>> ExpectedLiveSet() const;

 private:
  struct Container {
    std::string root, id, path, data_path, metadata_path;
    uint32_t version = 2;
    uint64_t fs_block_size = 4096;
    std::vector<BlockRecordPB> records;
    std::vector<uint64_t> record_offsets;        // raw offset of each record
    std::map<uint64_t, BlockRecordPB> live;      // by id
    uint64_t total_blocks = 0;
    uint64_t next_block_offset = 0;
    bool sealed = false;  // a partial record or removed file: no further damage
  };

  Status LoadContainer(const std::string& root, const std::string& id, Container* c);
  void ApplyRecord(Container* c, const BlockRecordPB& r);
  bool IsFull(const Container& c) const;
  // A container chosen at random among the unsealed ones that `want` accepts.
  Status PickContainer(const char* what, const std::function<bool(const Container&)>& want,
                       Container** out);
  Status AppendRecords(Container* c, const std::vector<BlockRecordPB>& records,
                       uint64_t* first_offset);
  // Extends the data file to `size` raw bytes (zeros, a hole past the old end).
  Status ExtendDataFile(const Container& c, uint64_t size);
  uint64_t DataFileSize(const Container& c) const;
  uint64_t FreshBlockId();
  std::string FreshContainerId();
  uint64_t FirstBlockOffset(const Container& c) const;
  void Record(Injected inj, Injected* out);

  Options opts_;
  std::mt19937_64 rng_;
  std::vector<Container> containers_;
  std::vector<Injected> injected_;
  uint64_t max_id_ = 0;
};

}  // namespace test
}  // namespace kudu
