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

// The write side of the log block manager: what a Kudu server does to its
// data directories when it creates and deletes blocks.
//
//   create: the block's bytes are appended to <id>.data at the container's
//           next offset, aligned to the filesystem block size; then a CREATE
//           record (id, offset, length, timestamp) is appended to
//           <id>.metadata. Bytes first, record second: a crash in between
//           leaves unreferenced bytes (wasted space), never a record that
//           points at bytes that were not written.
//   delete: a DELETE record is appended to the owning container's metadata,
//           then the block's range is punched out of the data file. Record
//           first, hole second: a crash in between leaves space that a
//           later hole punch can reclaim, never a live block without bytes.
//
// Several blocks created (or deleted) together are committed with one
// metadata write per container, stamped with one time, as a server's group
// commit does. A container is full, and a new one is started, when its next
// write offset reaches --log_container_max_size, its CREATE count reaches
// --log_container_max_blocks or its metadata file reaches
// --log_container_metadata_max_size, as Kudu's full() says. Then, as Kudu
// does, its data file is cut (here: extended) to the next block offset when
// full by size or count, and once a full container's last block is deleted
// its files are deleted (--log_block_manager_delete_dead_container). New
// containers go to the data dirs round-robin.
//
// This is the code path `kudu fs generate` drives, so generated directories
// are what a server would leave behind; tests and repair reuse its pieces
// (paths, container ids, metadata file creation).
#pragma once

#include <gflags/gflags_declare.h>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "kudu/fs/block_id.h"
#include "kudu/fs/block_record.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/fs/seeded_random.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/slice.h"
#include "kudu/util/status.h"

DECLARE_uint64(log_container_max_size);
DECLARE_int64(log_container_max_blocks);
DECLARE_uint64(log_container_metadata_max_size);
DECLARE_bool(log_block_manager_delete_dead_container);

namespace kudu {
namespace fs {

struct ContainerWriterOptions {
  // Picks up --log_container_max_size, --log_container_max_blocks,
  // --log_container_metadata_max_size and
  // --log_block_manager_delete_dead_container as they are when the options
  // are made.
  ContainerWriterOptions();

  // Data dir roots; containers go to <root>/data/, created if missing.
  std::vector<std::string> data_dirs;
  // 0: each dir's filesystem block size (env::GetBlockSize), as a server does.
  uint64_t fs_block_size = 0;

  // Encryption at rest: with a server key every new file gets a kuduenc
  // header wrapping a fresh file key for `algorithm`.
  const ServerKey* server_key = nullptr;
  CipherAlgorithm algorithm = CipherAlgorithm::kAes128Ctr;

  // PB container version of new metadata files (2 is what Kudu writes).
  uint32_t container_version = 2;

  // When a container is full (Kudu's full()).
  uint64_t max_container_size;
  int64_t max_container_blocks;  // -1 (or any value <= 0): unlimited
  int64_t max_metadata_size;     // <= 0: unlimited
  // Whether a full container whose last block is deleted has its files
  // deleted, as Kudu does by default. Off, such a dead container stays on
  // disk, as after a crash between its last DELETE record and the deletion.
  bool delete_dead_containers;

  // > 0: a container takes no more blocks after this many CREATEs, and the
  // next block starts a new one, without the first being full: the shape of
  // a workload (each container of a server gets the blocks of a few
  // writers), not a limit of Kudu's.
  int64_t roll_after_blocks = 0;

  // fsync data before the records that point at it, metadata after each
  // commit, and the data dir after a container is created: what makes a
  // server's acknowledgement durable. Generation for tests may turn it off
  // for speed; the on-disk order of writes is the same either way.
  bool sync = true;

  // 0: container ids from the OS and file keys from OpenSSL, as a server.
  // Otherwise both come from a SplitMix64 stream with this seed, so the same
  // seed gives byte-identical files (ciphertext included). Seeded file keys
  // are for reproducible test fixtures only.
  uint64_t seed = 0;

  // The id of the first block created; later ones count up from it.
  uint64_t first_block_id = 1;

  // Source of the records' timestamp_us; null means the wall clock.
  std::function<uint64_t()> clock_us;

  // Sparse data: block bytes are not written. Each data file is extended
  // (ftruncate) to the size writing the blocks would have given it, so it
  // reads as holes, and deleted blocks need no hole punch. The metadata is
  // byte for byte what the normal path writes, but its writes are batched
  // across group commits (a buffer per container, written when large, on
  // sync and on close): the same bytes with far fewer system calls. For
  // server-sized states whose block contents nobody reads.
  bool sparse_data = false;

  // Non-empty: the i-th container created takes this many CREATEs, in
  // place of roll_after_blocks (a shape too, not full).
  std::vector<int64_t> container_block_limits;

  // How many containers keep their files open (two descriptors each).
  // Deletes reach back into old containers; beyond this many, the least
  // recently used one is closed and reopened on demand, so a server-sized
  // directory does not exhaust fds. 0: as many as a quarter of the
  // process's descriptor limit holds (RLIMIT_NOFILE), at least 64. A fixed
  // 64 reopened a few hundred containers for every group commit of DELETEs
  // spread over 1,000 of them (docs/benchmarks.md, "Generation rate").
  size_t max_open_containers = 0;
};

// One container's pair of files, opened for writing.
class LogBlockContainerWriter {
 public:
  struct Params {
    std::string root;  // data dir root; files live in <root>/data/
    std::string id;    // 32 lowercase hex characters
    uint64_t fs_block_size = 4096;
    const ServerKey* server_key = nullptr;
    CipherAlgorithm algorithm = CipherAlgorithm::kAes128Ctr;
    std::string data_file_key;      // empty: random
    std::string metadata_file_key;  // empty: random
    uint32_t version = 2;
    bool sync = true;
    // See ContainerWriterOptions::sparse_data.
    bool sparse_data = false;
    // CREATEs after which the container takes no more blocks, without
    // being full (<= 0: unlimited).
    int64_t roll_after_blocks = -1;
    // The id its first block gets. A container is filled before the next
    // one starts, so it holds a run of ids from this one up to the next
    // container's first.
    uint64_t first_block_id = 0;
  };

  // Creates <id>.data, then <id>.metadata with its file header and
  // supplemental header in one write (after the encryption header, when
  // encrypted). Neither file may exist. On failure both files are removed
  // (best effort), so a failed creation leaves nothing; a crash during it
  // leaves an empty .data (or one holding only its encryption header) and a
  // .metadata shorter than a container header, or none: an incomplete
  // container, which the open recognises and repair deletes.
  static Status Create(const Params& params, std::unique_ptr<LogBlockContainerWriter>* out);

  ~LogBlockContainerWriter();
  LogBlockContainerWriter(const LogBlockContainerWriter&) = delete;
  LogBlockContainerWriter& operator=(const LogBlockContainerWriter&) = delete;

  // Writes a block's bytes (with sparse data: nothing) at next_offset() and
  // advances next_offset() to the end of the block, aligned up to the fs
  // block size. `*offset` is the raw file offset the block starts at
  // (encryption header included).
  Status AppendBlockData(Slice data, int64_t* offset);
  // Appends `records` to the metadata file in one write.
  Status AppendRecords(const std::vector<const BlockRecordPB*>& records);
  // Frames `record` into the pending metadata buffer; nothing is written
  // until CommitRecords().
  Status StageRecord(const BlockRecordPB& record);
  // The same for the record `record` and `timestamp_us` make, encoded
  // without a message (EncodeBlockRecord: protobuf's bytes). The block
  // manager's path.
  Status StageRecord(const BlockRecord& record, uint64_t timestamp_us);
  // Writes the staged records in one write: always, or, with sparse data,
  // once enough are staged to make the write worth its system call.
  Status CommitRecords();
  Status SyncData();
  Status SyncMetadata();
  // Frees a deleted block's space, rounded up to whole fs blocks as Kudu does.
  Status PunchHole(int64_t offset, int64_t length);

  // Closes both files; Reopen() opens them again to continue appending.
  Status Close();
  Status Reopen();
  bool is_open() const { return data_ != nullptr; }
  // Whether a failed write or close dropped staged records: the file may
  // lack records of blocks committed to the container.
  bool lost_records() const { return lost_records_; }
  // Closes and unlinks both files (best effort: every step is tried).
  Status DeleteFiles();

  // Kudu's data_full(): next_offset() reached `max_size`, or total_blocks()
  // reached `max_blocks` (when > 0).
  bool IsFull(uint64_t max_size, int64_t max_blocks) const;
  // Kudu's full(): data full, or the metadata file reached
  // `max_metadata_size` (when > 0).
  bool IsFull(uint64_t max_size, int64_t max_blocks, int64_t max_metadata_size) const;
  // Whether the workload's shape lets the container take another block.
  bool Rolled() const {
    return params_.roll_after_blocks > 0 && total_blocks_ >= params_.roll_after_blocks;
  }
  // Kudu's TruncateDataToNextBlockOffset, for a container that became full:
  // the data file ends at next_offset() (with no preallocation here, that
  // extends it over the last block's alignment padding).
  Status TruncateDataToNextOffset();
  // The container's live blocks and where their bytes are, kept by the
  // block manager. Its ids arrive ascending, so the set stays a sorted
  // vector: a CREATE is an append, and memory follows the live count.
  LiveBlockSet& live() { return live_; }
  const LiveBlockSet& live() const { return live_; }
  int64_t live_blocks() const { return static_cast<int64_t>(live_.size()); }
  uint64_t first_block_id() const { return params_.first_block_id; }

  const std::string& id() const { return params_.id; }
  const std::string& root() const { return params_.root; }
  const std::string& data_path() const { return data_path_; }
  const std::string& metadata_path() const { return metadata_path_; }
  bool encrypted() const { return params_.server_key != nullptr && !params_.server_key->empty(); }
  uint64_t fs_block_size() const { return params_.fs_block_size; }
  uint64_t next_offset() const { return next_offset_; }
  // Blocks whose bytes were written here (each gets a CREATE record).
  int64_t total_blocks() const { return total_blocks_; }
  // Raw size of the metadata file (the end of its last record), counting
  // records staged but not yet written.
  uint64_t metadata_size() const { return metadata_end_ + staged_.size(); }
  // Raw size of the data file: the end of its last non-empty block, or the
  // next block offset once the container is full.
  uint64_t data_size() const { return data_end_; }
  // Write system calls issued on the metadata file since it was created
  // (header included): how tests see that a group commit is one write.
  uint64_t metadata_write_syscalls() const;

  // ---- naming and layout, shared with readers and repair ----

  static constexpr size_t kIdLength = 32;
  // "<root>/data"
  static std::string DataDir(const std::string& root);
  static std::string DataPath(const std::string& root, const std::string& id);
  static std::string MetadataPath(const std::string& root, const std::string& id);
  // True when a kCreateNew open failed because the file already exists.
  static bool IsAlreadyExists(const Status& s);
  // Whether `s` is 32 lowercase hex characters.
  static bool IsValidId(const std::string& s);
  static std::string NewId(SeededRandom* rng);
  static uint64_t AlignUp(uint64_t v, uint64_t alignment) {
    return alignment == 0 ? v : (v + alignment - 1) / alignment * alignment;
  }
  // Where the first block of a new data file goes: 0, or past the
  // encryption header aligned up to the fs block size.
  static uint64_t FirstBlockOffset(bool encrypted, uint64_t fs_block_size) {
    return encrypted ? AlignUp(kEncryptionHeaderSize, fs_block_size) : 0;
  }
  // Creates a metadata file at `path` and writes its container header and
  // supplemental header (kudu.BlockRecordPB) in one write, syncing it when
  // `sync`. Used for new containers and by a metadata rewrite.
  static Status CreateMetadataFile(const std::string& path, CreateMode mode,
                                   const WriteEncryption& enc, uint32_t version, bool sync,
                                   std::unique_ptr<PbContainerWriter>* writer);

  static BlockRecordPB MakeCreateRecord(BlockId id, uint64_t timestamp_us, int64_t offset,
                                        int64_t length);
  static BlockRecordPB MakeDeleteRecord(BlockId id, uint64_t timestamp_us);
  // The same records written into `r`, reusing its allocations.
  static void FillCreateRecord(BlockId id, uint64_t timestamp_us, int64_t offset, int64_t length,
                               BlockRecordPB* r);
  static void FillDeleteRecord(BlockId id, uint64_t timestamp_us, BlockRecordPB* r);

 private:
  explicit LogBlockContainerWriter(Params params);

  const Params params_;
  const std::string data_path_;
  const std::string metadata_path_;
  std::unique_ptr<WritableFile> data_;
  std::unique_ptr<PbContainerWriter> metadata_;
  // Flushes staged_ whatever its size.
  Status WriteStaged();
  // Frames a record's body into staged_.
  void StageBody(Slice body);
  // Sparse data: gives the data file the size its written blocks reach,
  // which their records may then name.
  Status ExtendSparseData();

  uint64_t next_offset_ = 0;
  uint64_t data_end_ = 0;
  uint64_t metadata_end_ = 0;  // written to the file; staged_ follows it
  std::string staged_;         // framed records not yet written
  std::string body_;           // serialization scratch
  int64_t total_blocks_ = 0;
  bool lost_records_ = false;
  LiveBlockSet live_;
  uint64_t closed_metadata_writes_ = 0;  // by metadata files closed so far
};

// Creates and deletes blocks across containers in several data dirs, as a
// server's log block manager does. Not thread-safe: a server serialises
// these per container, and generation gives each thread a manager of its
// own, over containers of its own.
class LogWritableBlockManager {
 public:
  // A live block this manager wrote: its container and where its bytes are
  // in that container's data file.
  struct WrittenBlock {
    LogBlockContainerWriter* container;
    int64_t offset;
    int64_t length;
  };
  // The live blocks of every container, by id. A view: it reads the
  // manager's containers and is valid while they do not change.
  class WrittenBlocks {
   public:
    size_t size() const { return mgr_->live_count_; }
    bool empty() const { return size() == 0; }
    std::optional<WrittenBlock> find(BlockId id) const;
    // Where a live block is; `id` must be live.
    WrittenBlock at(BlockId id) const;
    // Calls fn(id, block) for every live block, by ascending id.
    template <typename Fn>
    void ForEach(Fn&& fn) const {
      for (const auto& c : mgr_->containers_) {
        LogBlockContainerWriter* w = c.get();
        w->live().ForEach([&](uint64_t id, const BlockLocation& loc) {
          fn(BlockId(id), WrittenBlock{w, loc.offset, loc.length});
        });
      }
    }

   private:
    friend class LogWritableBlockManager;
    explicit WrittenBlocks(const LogWritableBlockManager* mgr) : mgr_(mgr) {}
    const LogWritableBlockManager* mgr_;
  };

  explicit LogWritableBlockManager(ContainerWriterOptions opts);
  ~LogWritableBlockManager();
  LogWritableBlockManager(const LogWritableBlockManager&) = delete;
  LogWritableBlockManager& operator=(const LogWritableBlockManager&) = delete;

  // Checks the options, creates <root>/data in every dir and learns each
  // dir's fs block size. Must succeed before anything else is called.
  Status Open();

  Status CreateBlock(Slice data, BlockId* id);
  // With sparse data only the slices' sizes matter; their bytes are not read.
  // A group commit: each block's bytes are written, then one metadata write
  // per container holds the CREATE records of the blocks that went there.
  // Blocks fill the current container and spill into new ones when it is
  // full. `ids` receives the new ids in order.
  Status CreateBlocks(const std::vector<Slice>& data, std::vector<BlockId>* ids);

  // NotFound (and nothing written) if an id is not live.
  Status DeleteBlock(BlockId id);
  // One metadata write per owning container, then the holes.
  Status DeleteBlocks(const std::vector<BlockId>& ids);

  // Syncs (when enabled) and closes every container.
  Status Close();

  // The open containers max_open_containers = 0 stands for: a quarter of
  // the descriptor limit's worth (two descriptors each), at least 64.
  // Managers that write at once share it out.
  static size_t DefaultOpenContainers();

  // After a failure: closes everything and deletes the files of the
  // container that was still being filled and of every container whose
  // records did not all reach its file (sparse data stages them past the
  // commit that filled the container; a failed write or close drops
  // them: lost_records()), best effort, so an interrupted run
  // leaves only containers that were complete. Their blocks leave the live
  // set. The manager is not usable afterwards.
  void AbandonUnfinished();

  WrittenBlocks live_blocks() const { return WrittenBlocks(this); }
  const std::vector<std::unique_ptr<LogBlockContainerWriter>>& containers() const {
    return containers_;
  }
  const ContainerWriterOptions& options() const { return opts_; }
  uint64_t next_block_id() const { return next_block_id_; }
  uint64_t blocks_created() const { return blocks_created_; }
  uint64_t blocks_deleted() const { return blocks_deleted_; }
  // Block payload bytes written (not counting alignment gaps).
  uint64_t data_bytes_written() const { return data_bytes_written_; }
  // Metadata bytes of the dead containers deleted: with the containers'
  // metadata sizes, every metadata byte written.
  uint64_t deleted_metadata_bytes() const { return deleted_metadata_bytes_; }
  // The container new blocks currently go to, or null.
  const LogBlockContainerWriter* current_container() const { return current_; }

 private:
  uint64_t NowMicros() const;
  // Starts a new container in the next data dir, round-robin.
  Status RollContainer();
  struct PendingCreate {
    BlockId id;
    int64_t offset;
    int64_t length;
  };
  // Commits `pending` CREATE records to `c`: sync data, one metadata write,
  // sync metadata; the blocks become live only if all of it succeeds.
  Status CommitCreates(LogBlockContainerWriter* c, std::vector<PendingCreate>* pending);
  // Makes sure `c` has open files, closing the least recently used others.
  Status Touch(LogBlockContainerWriter* c);

  // Stages one DELETE record per id (all in `c`, stamped `timestamp_us`)
  // and commits them, then forgets the blocks and punches their holes, or
  // deletes the container when that made it dead.
  Status CommitDeletes(LogBlockContainerWriter* c, const std::vector<BlockId>& ids,
                       uint64_t timestamp_us);
  bool IsFull(const LogBlockContainerWriter* c) const {
    return c->IsFull(opts_.max_container_size, opts_.max_container_blocks,
                     opts_.max_metadata_size);
  }
  // Deletes a dead container's files and forgets it.
  Status DeleteDeadContainer(LogBlockContainerWriter* c);
  // Drops `c` from containers_ (and first_ids_), destroying it.
  void ForgetContainer(LogBlockContainerWriter* c);
  // The container whose run of ids holds `id`, if `id` is live there.
  LogBlockContainerWriter* OwnerOf(BlockId id) const;

  const ContainerWriterOptions opts_;
  std::vector<uint64_t> block_sizes_;  // per data dir
  SeededRandom rng_;
  bool opened_ = false;
  size_t open_limit_ = 64;  // containers with open files, from max_open_containers
  size_t next_dir_ = 0;
  size_t containers_created_ = 0;
  uint64_t next_block_id_;
  uint64_t blocks_created_ = 0;
  uint64_t blocks_deleted_ = 0;
  uint64_t data_bytes_written_ = 0;
  uint64_t deleted_metadata_bytes_ = 0;

  // In creation order, which is the order of their first block ids; the
  // ids are kept apart as well, so that finding a block's container is a
  // binary search of one small array.
  std::vector<std::unique_ptr<LogBlockContainerWriter>> containers_;
  std::vector<uint64_t> first_ids_;
  LogBlockContainerWriter* current_ = nullptr;
  size_t live_count_ = 0;
  // Per-call scratch of CreateBlocks and DeleteBlocks, kept so that the
  // small batches of a workload allocate nothing.
  std::vector<PendingCreate> pending_;
  struct DeleteScratch {
    std::vector<LogBlockContainerWriter*> owner;  // per id
    std::vector<BlockLocation> holes;
    std::vector<LogBlockContainerWriter*> order;
    std::vector<size_t> group_of;
    std::vector<size_t> by_group;
    std::vector<BlockId> group_ids;
  } del_;

  std::list<LogBlockContainerWriter*> open_lru_;  // most recent first
  absl::flat_hash_map<LogBlockContainerWriter*, std::list<LogBlockContainerWriter*>::iterator>
      open_pos_;
};

}  // namespace fs
}  // namespace kudu
