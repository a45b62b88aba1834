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

#include "kudu/fs/container_load.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <google/protobuf/text_format.h>

#include "kudu/fs/container_listing.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"
#include "kudu/fs/data_file_header.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/env.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_reader.h"

namespace kudu {
namespace fs {

namespace {

uint64_t HeaderSize(const ContainerInfo& c) { return c.encrypted ? kEncryptionHeaderSize : 0; }

// The numbers the classification needs (the counts are filled in after the
// replay).
ContainerFacts FactsOf(const ContainerInfo& c) {
  ContainerFacts f;
  f.has_data = c.has_data;
  f.has_metadata = c.has_metadata;
  f.data_size = c.data_size;
  f.metadata_size = c.metadata_size;
  f.encryption_header_size = HeaderSize(c);
  return f;
}

// Opens `c`'s metadata file (the listing's descriptor in `*held`, if any,
// else by name in `data_dir_fd`), or records why it cannot be. A held
// descriptor is closed by `closer`, if any: one the listing held, and which
// counted against its share of the process's descriptors, so that closing
// it later never holds more open than the listing did. One opened here is
// closed with the file.
std::unique_ptr<RandomAccessFile> OpenMetadata(ContainerInfo* c, int data_dir_fd, int* held,
                                               const ServerKey* key, DeferredCloser* closer) {
  std::unique_ptr<RandomAccessFile> file;
  Status s;
  const int fd = held != nullptr ? HeldFiles::Take(held) : -1;
  if (fd >= 0) {
    s = RandomAccessFile::FromOpenFd(fd, c->metadata_path, c->metadata_size, key, &file);
    if (s.ok()) file->CloseWith(closer);
  } else {
    s = RandomAccessFile::OpenAt(data_dir_fd, c->metadata_path, key, &file);
  }
  if (!s.ok()) {
    c->AddProblem(s.IsCorruption() ? ContainerProblem::Kind::kCorruption
                                   : ContainerProblem::Kind::kIOError,
                  c->metadata_path, 0, s);
  }
  return file;
}

// False, with the container's fatal problem, when the listing found that
// one of its files could not be opened for reading and writing.
bool OpenableForWriting(ContainerInfo* c) {
  const bool metadata = c->metadata_rw_error != 0;
  if (!metadata && c->data_rw_error == 0) return true;
  const std::string& path = metadata ? c->metadata_path : c->data_path;
  const int err = metadata ? c->metadata_rw_error : c->data_rw_error;
  c->AddProblem(ContainerProblem::Kind::kIOError, path, 0,
                Status::IOError(path + ": " + std::strerror(err) +
                                    ": a server opens every container file for reading and "
                                    "writing",
                                "", err));
  c->problems.back().whole_file = true;
  return false;
}

// How the replay ended, and the problem it is when it did not end well.
void RecordOutcome(const ContainerReplayResult& r, ContainerInfo* c) {
  c->replayed = true;
  c->outcome = r.outcome;
  c->strategy = r.chosen;
  c->fell_back = r.fell_back;
  if (r.outcome.kind == ReplayOutcome::Kind::kCorruption) {
    c->AddProblem(ContainerProblem::Kind::kCorruption, c->metadata_path, r.outcome.offset,
                  r.outcome.status);
  } else if (r.outcome.kind == ReplayOutcome::Kind::kIOError) {
    c->AddProblem(ContainerProblem::Kind::kIOError, c->metadata_path, r.outcome.offset,
                  r.outcome.status);
  }
}

// The protobuf text format of a record body, as Kudu's SecureDebugString
// prints it (TextFormat::Printer; BlockRecordPB has no redacted field).
std::string RecordText(const std::string& body) {
  BlockRecordPB pb;
  pb.ParsePartialFromString(body);
  std::string text;
  google::protobuf::TextFormat::Printer().PrintToString(pb, &text);
  return text;
}

// Reads the record starting at raw `offset` of `file` (already delivered
// once by the replay, so its frame is known to be whole) into `body`.
Status ReadRecordBody(RandomAccessFile* file, uint64_t offset, std::string* body) {
  namespace pbc = pb_container;
  uint8_t buf[4];
  RETURN_NOT_OK(file->Read(file->encryption_header_size() + pbc::kMagicSize, buf, 4));
  const uint32_t version = pbc::DecodeFixed32(buf);
  RETURN_NOT_OK(file->Read(offset, buf, 4));
  const uint32_t len = pbc::DecodeFixed32(buf);
  if (offset + pbc::RecordPrefixSize(version) + len > file->size()) {
    return Status::Corruption(file->filename() + ": record at offset " + std::to_string(offset) +
                              " changed since the replay");
  }
  body->resize(len);
  return file->Read(offset + pbc::RecordPrefixSize(version),
                    reinterpret_cast<uint8_t*>(&(*body)[0]), len);
}

// The text of every malformed record (rare: one more read per record, and
// the file header's version once each), counted in `stats`. A record that
// cannot be read again keeps the error as its text.
void FillMalformedTexts(RandomAccessFile* file, ReplayStats* stats,
                        std::vector<MalformedRecord>* malformed) {
  const FileIoStats before = file->stats();
  for (MalformedRecord& m : *malformed) {
    std::string body;
    Status s = ReadRecordBody(file, m.record_offset, &body);
    m.text = s.ok() ? RecordText(body) : s.ToString() + "\n";
  }
  if (stats != nullptr) {
    stats->Add(stats->metadata_read_syscalls, file->stats().read_syscalls - before.read_syscalls);
    stats->Add(stats->metadata_bytes_read, file->stats().bytes_read - before.bytes_read);
  }
}

// Kudu's naive replay of a metadata file whose data file is missing (§4.1):
// CREATE adds its id, DELETE removes it, and nothing else is checked (no
// bounds, no duplicates, no unknown operations).
class NaiveIdSet : public BlockRecordSink {
 public:
  void OnRecord(const BlockRecord& record, uint64_t /*offset*/) override {
    if (record.op_type == CREATE) {
      ids_.insert(record.block_id);
    } else if (record.op_type == DELETE) {
      ids_.erase(record.block_id);
    }
  }
  size_t size() const { return ids_.size(); }

 private:
  absl::flat_hash_set<uint64_t> ids_;
};

// §4.1 for a metadata file without its data file: an incomplete container
// (a crash before any block was written) only when the naive replay ends
// cleanly with no id left. A partial trailing record or ids left are fatal
// (the blocks' bytes are gone; Kudu's open ends in the data file's
// NotFound), as is damage. Rare, so read by the reference reader with no
// budget, and nothing of it is merged.
void ReplayWithoutData(ContainerInfo* c, RandomAccessFile* file,
                       const ClassificationRules& rules, ReplayStats* stats) {
  NaiveIdSet ids;
  FileRecordSource source(file);
  BlockRecordPB scratch;
  ContainerReplayResult r;
  r.outcome = ReplayRecordsFrom(&source, &scratch, &ids);
  RecordOutcome(r, c);
  if (stats != nullptr) {
    stats->Add(stats->containers_by_strategy[static_cast<int>(ReplayStrategyKind::kStreaming)], 1);
    stats->Add(stats->records, r.outcome.records);
    stats->Add(stats->metadata_read_syscalls, file->stats().read_syscalls);
    stats->Add(stats->metadata_bytes_read, file->stats().bytes_read);
  }
  const std::string missing = c->metadata_path + ": data file " + c->data_path + " is missing";
  if (r.outcome.kind == ReplayOutcome::Kind::kPartialRecord) {
    c->AddProblem(ContainerProblem::Kind::kMissingData, c->metadata_path, r.outcome.offset,
                  Status::Corruption(missing + ", and the metadata file ends in a partial "
                                     "trailing record at offset " +
                                     std::to_string(r.outcome.offset)));
  }
  ContainerFacts facts = FactsOf(*c);
  facts.replayed = true;
  facts.replay_fatal = c->fatal();
  facts.live_blocks = ids.size();
  const Classification classification = ClassifyContainer(facts, rules);
  if (classification.container_class == ContainerClass::kIncomplete) {
    c->incomplete = true;
    c->incomplete_reason = IncompleteReasonText(classification.incomplete_reason);
    c->outcome = ReplayOutcome();  // its tail does not matter: repair deletes it
    return;
  }
  c->live_blocks = ids.size();
  if (!c->fatal()) {
    c->AddProblem(ContainerProblem::Kind::kMissingData, c->metadata_path, 0,
                  Status::Corruption(missing + ", but the metadata has " +
                                     std::to_string(ids.size()) + " live blocks"));
  }
}

// The encryption header's share of live_bytes / live_bytes_aligned (§4.3).
uint64_t HeaderLiveBytes(const ContainerInfo& c) { return HeaderSize(c); }
uint64_t HeaderLiveBytesAligned(const ContainerInfo& c, const ContainerReplayState& state) {
  return c.encrypted ? state.AlignUpToBlock(kEncryptionHeaderSize) : 0;
}

void KeepCounts(const ContainerReplayState& state, ContainerInfo* c) {
  c->live_blocks = state.live_count();
  c->live_bytes = state.live_bytes() + HeaderLiveBytes(*c);
  c->live_bytes_aligned = state.live_bytes_aligned() + HeaderLiveBytesAligned(*c, state);
  c->total_blocks = state.total_blocks();
  c->next_write_offset = state.next_write_offset();
  c->has_max_block_id = state.has_max_block_id();
  c->max_block_id = state.max_block_id();
}

// The class once the replay has ended; false when it made the container
// incomplete (nothing else about it is kept then).
bool ApplyClass(const ContainerReplayState& state, const ClassificationRules& rules,
                ContainerInfo* c) {
  ContainerFacts facts = FactsOf(*c);
  facts.replayed = true;
  facts.replay_fatal = c->fatal();
  facts.next_write_offset = state.next_write_offset();
  facts.total_blocks = state.total_blocks();
  facts.live_blocks = state.live_count();
  facts.live_bytes_aligned = state.live_bytes_aligned() + HeaderLiveBytesAligned(*c, state);
  facts.dead_blocks_kept = c->kept_dead_blocks.size();
  Classification classification = ClassifyContainer(facts, rules);
  // The allocated size only matters to the extra-space rule, which only
  // full containers have: most containers of a server are not full, and
  // asking for it would be one more system call for each of them. Whether
  // a container is full does not depend on it.
  if (classification.data_full || classification.metadata_full) {
    // Without it the extra-space rule sees none; the open goes on.
    if (env::GetFileAllocatedSize(c->data_path, &c->data_allocated_bytes).ok()) {
      facts.data_allocated_bytes = c->data_allocated_bytes;
      classification = ClassifyContainer(facts, rules);
    }
  }
  if (classification.container_class == ContainerClass::kIncomplete) {
    c->incomplete = true;
    c->incomplete_reason = IncompleteReasonText(classification.incomplete_reason);
    c->outcome = ReplayOutcome();  // its tail does not matter: repair deletes it
    c->malformed.clear();
    c->kept_dead_blocks.clear();
    return false;
  }
  c->full = classification.full();
  c->data_full = classification.data_full;
  c->metadata_full = classification.metadata_full;
  c->dead = classification.container_class == ContainerClass::kDead;
  c->extra_space = classification.extra_space;
  c->excess_bytes = classification.excess_bytes;
  c->low_live = classification.compaction != CompactionRule::kNone;
  c->compaction_rule = CompactionRuleName(classification.compaction);
  return true;
}

// The live blocks (ascending ids) that do not start on a block boundary.
std::vector<LiveBlock> MisalignedBlocks(const LiveBlocks& live,
                                        uint64_t fs_block_size) {
  std::vector<LiveBlock> out;
  const uint64_t bs = fs_block_size ? fs_block_size : 4096;
  // A mask where the block size is a power of two (every real filesystem):
  // a division per live block was most of LoadContainer's own time.
  const uint64_t mask = (bs & (bs - 1)) == 0 ? bs - 1 : 0;
  for (const LiveBlock& b : live) {
    const uint64_t offset = static_cast<uint64_t>(b.loc.offset);
    if (mask != 0 ? (offset & mask) != 0 : offset % bs != 0) out.push_back(b);
  }
  return out;
}

}  // namespace

uint64_t EstimatedCreateRecords(const ContainerInfo& c) {
  if (!c.has_metadata) return 0;
  // A CREATE record as every writer emits it takes at least ~42 bytes
  // (8-byte v2 prefix, 11-byte block id, op, timestamp, offset, length,
  // 4-byte CRC); the cap keeps a huge file from making a huge reservation.
  const uint64_t payload = c.metadata_size - std::min(c.metadata_size, HeaderSize(c));
  uint64_t records = std::min<uint64_t>(payload / 42, 1ULL << 22);
  // Only a hint: zero-length or misaligned blocks past it grow the sets.
  if (c.has_data && c.fs_block_size > 0) {
    const uint64_t data = c.data_size - std::min(c.data_size, HeaderSize(c));
    records = std::min(records, data / c.fs_block_size + 1);
  }
  return records;
}

bool WillReplay(const ContainerInfo& c) {
  return IncompleteBySize(FactsOf(c)) == IncompleteReason::kNone && c.has_metadata;
}

LiveBlocks LoadContainer(ContainerInfo* c, int data_dir_fd, int* held_metadata,
                         const ServerKey* key, const ClassificationRules& rules,
                         ContainerReplayer* replayer, DeferredCloser* closer) {
  // Found fatal while listing (a container file that is not a regular file):
  // nothing of it is opened.
  if (c->fatal()) return {};
  // §4: a crash while creating the container.
  const IncompleteReason by_size = IncompleteBySize(FactsOf(*c));
  if (by_size != IncompleteReason::kNone) {
    c->incomplete = true;
    c->incomplete_reason = IncompleteReasonText(by_size);
    return {};
  }
  if (!c->has_metadata) {
    c->AddProblem(ContainerProblem::Kind::kMissingMetadata, c->data_path, 0,
                  Status::Corruption(c->data_path + ": data file of " +
                                     std::to_string(c->data_size) +
                                     " bytes has no metadata file (" + c->metadata_path +
                                     " is missing)"));
    return {};
  }
  // Kudu opens both files of such a container for reading and writing,
  // the metadata file first, in every mode (log_block_manager.cc 1291-1309):
  // one this process may not write is a container a server cannot open.
  // Not before: an incomplete container and the naive replay of one without
  // its data file only read.
  if (c->has_data && !OpenableForWriting(c)) return {};
  // The metadata file first: a container whose metadata cannot be opened
  // (its encryption header included) is reported for that, not for its
  // data file's header.
  std::unique_ptr<RandomAccessFile> file =
      OpenMetadata(c, data_dir_fd, held_metadata, key, closer);
  if (file == nullptr) return {};
  if (!CheckDataFileHeader(c, data_dir_fd)) return {};
  if (!c->has_data) {
    ReplayWithoutData(c, file.get(), rules, replayer->stats());
    return {};
  }
  ContainerReplayState state(c->data_size, HeaderSize(*c), c->fs_block_size);
  // By name in its dir, as the listing found it (rfind's npos + 1 is 0).
  const char* data_name = data_dir_fd == AT_FDCWD
                              ? c->data_path.c_str()
                              : c->data_path.c_str() + (c->data_path.rfind('/') + 1);
  state.set_data_file_sizer([data_dir_fd, data_name](uint64_t* size) {
    struct stat st;
    if (::fstatat(data_dir_fd, data_name, &st, 0) != 0) return false;
    *size = static_cast<uint64_t>(st.st_size);
    return true;
  });
  // Sized once for the most CREATE records the file can hold, so that the
  // live map does not rehash as it fills.
  state.Reserve(EstimatedCreateRecords(*c));
  RecordOutcome(replayer->Replay(file.get(), &state), c);
  c->records_data_size = state.data_file_size();
  c->malformed = state.malformed();
  if (!c->malformed.empty()) FillMalformedTexts(file.get(), replayer->stats(), &c->malformed);
  file.reset();  // before the merge: closed, or handed to the closer
  c->kept_dead_blocks = state.DeadBlocksCompactionKeeps();
  if (!ApplyClass(state, rules, c)) return {};
  KeepCounts(state, c);
  // A corrupt container (its records could not all be read) counts nowhere
  // (§4.1), so its ids cannot make another container a duplicate: Kudu
  // never merges a container whose records fail to read.
  if (c->fatal()) return {};
  LiveBlocks live = state.TakeLiveBlocks();
  c->misaligned_blocks = MisalignedBlocks(live, c->fs_block_size);
  return live;
}

}  // namespace fs
}  // namespace kudu
