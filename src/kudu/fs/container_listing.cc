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

#include "kudu/fs/container_listing.h"

#include <endian.h>
#include <glog/logging.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <string_view>
#include <utility>
#include <vector>

#include "kudu/fs/container_writer.h"
#include "kudu/fs/repair.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/deferred_close.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace fs {

namespace {

constexpr char kDataSuffix[] = ".data";
constexpr char kMetadataSuffix[] = ".metadata";

bool EndsWith(const std::string& s, const char* suffix, size_t n) {
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

Status CheckDataDir(const std::string& root) {
  bool is_dir = false;
  Status s = env::IsDirectory(root, &is_dir);
  if (s.IsNotFound()) return Status::NotFound("data dir " + root + " does not exist");
  RETURN_NOT_OK_PREPEND(s, "data dir " + root);
  if (!is_dir) return Status::InvalidArgument("data dir " + root + " is not a directory");
  const std::string data = LogBlockContainerWriter::DataDir(root);
  s = env::IsDirectory(data, &is_dir);
  if (s.IsNotFound() || (s.ok() && !is_dir)) {
    return Status::NotFound("data dir " + root + " has no data/ subdirectory (" + data +
                            "): not a log block manager data dir");
  }
  RETURN_NOT_OK_PREPEND(s, "data dir " + root);
  return Status::OK();
}

namespace {

uint64_t BlockSizeOf(const std::string& root) {
  uint64_t block_size = 0;
  Status s = env::GetBlockSize(LogBlockContainerWriter::DataDir(root), &block_size);
  if (!s.ok() || block_size == 0) {
    LOG(WARNING) << "Cannot learn the filesystem block size of " << root << " (" << s.ToString()
                 << "); assuming 4096";
    block_size = 4096;
  }
  return block_size;
}

// The mount a data dir is on: most container files are reached on it.
struct DirMount {
  uint64_t id = 0;  // 0: unknown
  bool read_only = false;
};

// Whether this process's effective capabilities let it read and write
// files whatever their mode bits and ACLs say (root, unless dropped). Only
// in the first user namespace: in another, the kernel ignores the
// capability for files whose owner it does not map (unshare -U).
bool OverridesFilePermissions() {
  std::ifstream uid_map("/proc/self/uid_map");
  uint64_t inside = 1, outside = 1, count = 0;
  if (!(uid_map >> inside >> outside >> count) || inside != 0 || outside != 0 ||
      count != 4294967295u) {
    return false;
  }
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  return (data[CAP_TO_INDEX(CAP_DAC_OVERRIDE)].effective & CAP_TO_MASK(CAP_DAC_OVERRIDE)) != 0;
}

// 0 when this process may open a file of this stat for reading and
// writing, else the errno its open would fail with. An immutable or
// append-only file (from the same statx) cannot be, whatever its mode. A
// file reached on another mount than its dir (a symlink out of it, a bind
// mount over it) is asked of access(2), which knows its mount; on the
// dir's mount, the mount's flag (asked once per dir) and the mode bits
// answer without a system call, and only when the bits say no does
// access(2) decide (root's capabilities, or an ACL, may still allow it).
// The owner's bits are all an ACL holds for the owner; for anyone else an
// ACL entry may refuse what the group or other bits allow, so a process
// that owns neither the file nor the capability to override its
// permissions asks access(2) of every file it does not own (a server's own
// files, and root's check of them, cost no system call).
int ReadWriteError(int dir_fd, const std::string& name, const struct stat& st,
                   const env::FileAttributes& attrs, const DirMount& dir) {
  auto ask = [&]() { return ::faccessat(dir_fd, name.c_str(), R_OK | W_OK, AT_EACCESS) == 0 ? 0 : errno; };
  if (attrs.write_protected) return EPERM;
  if (attrs.mount_id == 0 || attrs.mount_id != dir.id) return ask();
  if (dir.read_only) return EROFS;
  struct Credentials {
    uid_t uid = ::geteuid();
    gid_t gid = ::getegid();
    bool overrides = OverridesFilePermissions();
    std::vector<gid_t> groups;
    Credentials() {
      const int n = ::getgroups(0, nullptr);
      groups.resize(n > 0 ? static_cast<size_t>(n) : 0);
      if (n > 0 && ::getgroups(n, groups.data()) != n) groups.clear();
    }
  };
  static const Credentials me;
  mode_t bits;
  if (st.st_uid == me.uid) {
    bits = (st.st_mode >> 6) & 7;
  } else if (!me.overrides) {
    return ask();
  } else if (st.st_gid == me.gid ||
             std::find(me.groups.begin(), me.groups.end(), st.st_gid) != me.groups.end()) {
    bits = (st.st_mode >> 3) & 7;
  } else {
    bits = st.st_mode & 7;
  }
  if ((bits & 6) == 6) return 0;
  return ask();
}

// Notes one listed file of a container (its size included, and whether it
// could be opened for reading and writing), found by its name in `dir_fd`,
// the container's data/. A file that is not a regular file makes the
// container fatal (§4.1) without being opened.
Status AddContainerFile(int dir_fd, const DirMount& mount, const std::string& path,
                        bool is_metadata, ContainerInfo* c) {
  struct stat st;
  env::FileAttributes attrs;
  const std::string name = c->id + (is_metadata ? kMetadataSuffix : kDataSuffix);
  Status s = env::StatRegularFileAt(dir_fd, name, path, &st, &attrs);
  if (s.IsNotFound()) return Status::OK();  // deleted since the listing: as if absent
  if (s.IsIllegalState()) {
    (is_metadata ? c->has_metadata : c->has_data) = true;
    c->AddProblem(ContainerProblem::Kind::kNotRegularFile, path, 0,
                  Status::Corruption(s.message()));
    return Status::OK();
  }
  RETURN_NOT_OK(s);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const int rw_error = ReadWriteError(dir_fd, name, st, attrs, mount);
  if (is_metadata) {
    c->has_metadata = true;
    c->metadata_size = size;
    c->metadata_rw_error = rw_error;
  } else {
    c->has_data = true;
    c->data_size = size;
    c->data_rw_error = rw_error;
  }
  return Status::OK();
}

// Which of a container's files the listing found.
enum ListedFiles : uint8_t { kListedData = 1, kListedMetadata = 2 };

// A listed container file: its name (in the listing's vector) and what
// its stem sorts by first.
struct ListedFile {
  // The stem's first 8 bytes, big-endian, zero-padded: ordered as the
  // stems are wherever they differ (it is a prefix of the string order),
  // so that the sort compares whole stems only for the two files of one
  // container (or stems alike in their first 8 bytes).
  uint64_t key;
  const std::string* name;
  uint32_t stem_length;
  uint8_t kind;  // ListedFiles
  std::string_view stem() const { return std::string_view(name->data(), stem_length); }
};

uint64_t StemKey(const std::string& name, size_t stem_length) {
  uint64_t k = 0;
  std::memcpy(&k, name.data(), std::min<size_t>(stem_length, sizeof(k)));
  return be64toh(k);
}

// A container as the pairing found it: what a worker needs to build its
// ContainerInfo and stat its files.
struct ListedContainer {
  const std::string* name;  // one of its files' names (the stem is its prefix)
  uint32_t stem_length;
  uint32_t dir_index;
  uint8_t found;  // ListedFiles
};

// Lists <root>/data/ (unless `given_names` holds its names) and pairs its
// files into containers, appended to `out` in id order. Nothing is built or
// stat'ed yet: the names (in `given_names` or `read_names`) must outlive
// `out`.
Status PairContainerFiles(uint32_t dir_index, const std::string& data_dir,
                          const std::vector<std::string>* given_names,
                          std::vector<std::string>* read_names,
                          std::vector<ListedContainer>* out) {
  if (given_names == nullptr) {
    RETURN_NOT_OK_PREPEND(env::ListDir(data_dir, read_names), "cannot list data dir");
  }
  const std::vector<std::string>& names = given_names != nullptr ? *given_names : *read_names;
  // Sorted by stem (deterministic), a container's two files side by side.
  // This runs on one thread before any replay, once per file of a server
  // with thousands of containers: the sort compares integers where it can.
  std::vector<ListedFile> files;
  files.reserve(names.size());
  for (const std::string& name : names) {
    size_t stem_length;
    bool is_metadata;
    if (ContainerFileStem(name, &stem_length, &is_metadata)) {
      files.push_back(ListedFile{StemKey(name, stem_length), &name,
                                 static_cast<uint32_t>(stem_length),
                                 is_metadata ? kListedMetadata : kListedData});
    }
    // Anything else (block_manager_instance, temporary files, stray files) is not ours.
  }
  std::sort(files.begin(), files.end(), [](const ListedFile& a, const ListedFile& b) {
    if (a.key != b.key) return a.key < b.key;
    const int c = a.stem().compare(b.stem());
    return c != 0 ? c < 0 : a.kind < b.kind;
  });
  for (size_t i = 0; i < files.size(); i++) {
    uint8_t found = files[i].kind;
    while (i + 1 < files.size() && files[i + 1].stem() == files[i].stem()) found |= files[++i].kind;
    out->push_back(ListedContainer{files[i].name, files[i].stem_length, dir_index, found});
  }
  return Status::OK();
}

// Opens `c`'s metadata file (by its name in `dir_fd`) into `*held`, its
// size the open file's, while `*budget` lasts. False when it holds nothing:
// the budget ran out, the process's descriptors did (no more are tried),
// or the open failed for a reason the stat will say (not a regular file, a
// symlink, deleted since the listing, no read permission).
bool HoldMetadataFile(int dir_fd, const DirMount& mount, ContainerInfo* c, int* held,
                      std::atomic<int64_t>* budget) {
  if (budget->fetch_sub(1, std::memory_order_relaxed) <= 0) return false;
  const char* name = c->metadata_path.c_str() + (c->path.size() - c->id.size());
  struct stat st;
  env::FileAttributes attrs;
  Status s = RandomAccessFile::OpenDescriptorAt(dir_fd, name, c->metadata_path, held, &st, &attrs);
  if (!s.ok()) {
    *held = -1;
    if (s.posix_code() == EMFILE || s.posix_code() == ENFILE) budget->store(0);
    return false;
  }
  c->has_metadata = true;
  c->metadata_size = static_cast<uint64_t>(st.st_size);
  c->metadata_rw_error = ReadWriteError(dir_fd, name, st, attrs, mount);
  return true;
}

// Grows the process's descriptor table at once to hold `n` more
// descriptors (a duplicate of `fd` numbered past them, closed again). The
// kernel grows a table that threads share by doubling it, and each growth
// waits for an RCU grace period: thousands of opens from the listing's
// threads would wait for one per doubling, longer than the opens take.
// Best effort: a table not grown here grows as it fills.
void ReserveDescriptors(int fd, int64_t n) {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  // Room too for what the process has open already (not counted: the
  // table's next doubling would cover a few hundred more).
  const uint64_t want = static_cast<uint64_t>(n) + 256;
  const uint64_t cap = limit.rlim_cur == RLIM_INFINITY ? want : limit.rlim_cur - 1;
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(std::min(want, cap)));
  if (high >= 0) ::close(high);
}

// Builds `*c` for `listed`: its id, its paths (<data dir>/<id> and that plus
// a suffix, what JoinPath, DataPath and MetadataPath give: a data dir never
// ends in '/'), and its files' sizes, found by name in its data/
// (`dir_fds`, by dir index): the data file stat'ed, the metadata file
// opened into `*held` (HoldMetadataFile) or else stat'ed.
Status BuildContainer(const ListedContainer& listed, const std::vector<std::string>& data_dirs,
                      const std::vector<int>& dir_fds, const std::vector<DirMount>& mounts,
                      bool encrypted, const std::vector<uint64_t>& fs_block_sizes,
                      ContainerInfo* c, int* held, std::atomic<int64_t>* budget) {
  const std::string& data_dir = data_dirs[listed.dir_index];
  c->dir_index = listed.dir_index;
  c->id.assign(listed.name->data(), listed.stem_length);
  c->path.reserve(data_dir.size() + 1 + c->id.size());
  c->path.append(data_dir).append(1, '/').append(c->id);
  c->data_path = c->path + kDataSuffix;
  c->metadata_path = c->path + kMetadataSuffix;
  c->encrypted = encrypted;
  c->fs_block_size = fs_block_sizes[listed.dir_index];
  const int fd = dir_fds[listed.dir_index];
  const DirMount& mount = mounts[listed.dir_index];
  if (listed.found & kListedData) RETURN_NOT_OK(AddContainerFile(fd, mount, c->data_path, false, c));
  if ((listed.found & kListedMetadata) && !HoldMetadataFile(fd, mount, c, held, budget)) {
    RETURN_NOT_OK(AddContainerFile(fd, mount, c->metadata_path, true, c));
  }
  return Status::OK();
}

// Below this many containers they are built on the caller's thread:
// starting threads would cost more than they save.
constexpr size_t kParallelBuildMinContainers = 256;
constexpr size_t kBuildChunk = 64;

// Builds every listed container, `threads` threads at a time. On a large
// dir this is most of the listing, which runs before any replay starts: the
// stats, and each container's four strings, whose fresh memory costs page
// faults (on the pairing's one thread they were a measurable share of a
// server-sized listing). Each container is its own, so threads take chunks
// of them. The error returned is the first in container order, whatever
// the thread timing.
Status BuildContainers(const std::vector<ListedContainer>& listed,
                       const std::vector<std::string>& data_dirs, const std::vector<int>& dir_fds,
                       bool encrypted, const std::vector<uint64_t>& fs_block_sizes, int threads,
                       size_t held_budget, ContainerInfos* containers,
                       std::vector<int>* held) {
  const size_t n = listed.size();
  containers->resize(n);
  held->assign(n, -1);
  std::atomic<int64_t> budget{static_cast<int64_t>(std::min<size_t>(held_budget, n))};
  if (budget.load() > 0 && !dir_fds.empty()) ReserveDescriptors(dir_fds[0], budget.load());
  // Each dir's mount, and whether it is read-only: asked once per dir.
  std::vector<DirMount> mounts(dir_fds.size());
  for (size_t d = 0; d < dir_fds.size(); d++) {
    if (dir_fds[d] < 0) continue;
    struct stat st;
    env::FileAttributes attrs;
    if (env::StatAt(dir_fds[d], "", AT_EMPTY_PATH, &st, &attrs) == 0) mounts[d].id = attrs.mount_id;
    struct statvfs vfs;
    mounts[d].read_only = ::fstatvfs(dir_fds[d], &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0;
  }
  auto build = [&](size_t i) {
    return BuildContainer(listed[i], data_dirs, dir_fds, mounts, encrypted,
                          fs_block_sizes, &(*containers)[i], &(*held)[i], &budget);
  };
  std::vector<Status> statuses(n);
  const size_t chunks = (n + kBuildChunk - 1) / kBuildChunk;
  ParallelFor("list-stat", chunks, n < kParallelBuildMinContainers ? 1 : threads, [&](size_t k) {
    for (size_t i = k * kBuildChunk; i < std::min(n, (k + 1) * kBuildChunk); i++) {
      statuses[i] = build(i);
    }
  });
  for (const Status& s : statuses) RETURN_NOT_OK(s);
  return Status::OK();
}

}  // namespace

bool ContainerFileStem(const std::string& name, size_t* stem_length, bool* is_metadata) {
  const size_t kData = sizeof(kDataSuffix) - 1, kMeta = sizeof(kMetadataSuffix) - 1;
  if (HasTmpInfix(name)) return false;  // a temporary file is never a container (§1)
  if (EndsWith(name, kMetadataSuffix, kMeta)) {
    *stem_length = name.size() - kMeta;
    *is_metadata = true;
  } else if (EndsWith(name, kDataSuffix, kData)) {
    *stem_length = name.size() - kData;
    *is_metadata = false;
  } else {
    return false;
  }
  // Whatever the stem looks like, it names a container, as in Kudu: a file
  // the open skipped for its name would be blocks a server has and the
  // report does not (§1). The report notes the stems Kudu never makes.
  return true;
}

bool ParseContainerFileName(const std::string& name, std::string* id, bool* is_metadata) {
  size_t stem_length;
  if (!ContainerFileStem(name, &stem_length, is_metadata)) return false;
  *id = name.substr(0, stem_length);
  return true;
}

bool IsStandardContainerId(const std::string& id) {
  return LogBlockContainerWriter::IsValidId(id);
}

HeldFiles::~HeldFiles() { CloseAll(); }

void HeldFiles::Reset(std::vector<int> fds) {
  CloseAll();
  fds_ = std::move(fds);
}

void HeldFiles::Truncate(size_t n) {
  if (n >= fds_.size()) return;
  std::vector<int> dropped(fds_.begin() + static_cast<std::ptrdiff_t>(n), fds_.end());
  CloseDescriptors(&dropped);
  fds_.resize(n);
}

// The listing opened them in a burst: mostly runs of consecutive numbers.
void HeldFiles::CloseAll() { CloseDescriptors(&fds_); }

size_t HeldFileBudget(size_t reserved) {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur == RLIM_INFINITY) return size_t{1} << 20;
  const uint64_t soft = static_cast<uint64_t>(limit.rlim_cur);
  return soft <= reserved ? 0 : static_cast<size_t>((soft - reserved) / 2);
}

Status ListDataDirs(const std::vector<std::string>& roots,
                    const std::vector<uint64_t>& fs_block_sizes, bool encrypted, int stat_threads,
                    ContainerListing* out,
                    const std::vector<std::optional<std::vector<std::string>>>* names,
                    size_t reserved_descriptors) {
  // The names of the dirs read here, kept until every container is built.
  const size_t dirs = roots.size();
  std::vector<std::vector<std::string>> read_names(dirs);
  std::vector<std::string> data_dirs;
  for (const std::string& root : roots) data_dirs.push_back(LogBlockContainerWriter::DataDir(root));
  // Each dir paired on a thread of its own (a sort of its names, and its
  // names read here when the walk before could not): dirs are independent,
  // and the containers come out in dir order whatever the thread timing.
  std::vector<std::vector<ListedContainer>> per_dir(dirs);
  std::vector<Status> paired(dirs);
  out->fs_block_sizes.assign(dirs, 0);
  ParallelFor("list-pair", dirs, stat_threads, [&](size_t d) {
    const uint64_t given = d < fs_block_sizes.size() ? fs_block_sizes[d] : 0;
    out->fs_block_sizes[d] = given != 0 ? given : BlockSizeOf(roots[d]);
    const std::vector<std::string>* read_before =
        names != nullptr && d < names->size() && (*names)[d].has_value() ? &*(*names)[d]
                                                                         : nullptr;
    paired[d] = PairContainerFiles(static_cast<uint32_t>(d), data_dirs[d], read_before,
                                   &read_names[d], &per_dir[d]);
  });
  // Each file is stat'ed by its name in its data/, open here: a lookup of
  // one path component instead of every one of <root>/data/<name> (on a
  // 2,000-container dir the stats are half the listing). The replay opens
  // the metadata files the same way.
  std::vector<ListedContainer> listed;
  for (size_t d = 0; d < dirs; d++) {
    Status s = out->data_dirs.Add(data_dirs[d]);
    if (!paired[d].ok()) s = paired[d];
    if (!s.ok()) {
      out->unlisted_dirs.push_back(DataDirProblem{data_dirs[d], s});
      continue;
    }
    listed.insert(listed.end(), per_dir[d].begin(), per_dir[d].end());
  }
  ContainerInfos listed_containers;
  std::vector<int> held;
  Status s = BuildContainers(listed, data_dirs, out->data_dirs.fds(), encrypted,
                             out->fs_block_sizes, stat_threads,
                             HeldFileBudget(reserved_descriptors), &listed_containers, &held);
  // Held from here on, closed with the listing (or now, on failure).
  out->metadata_files.Reset(std::move(held));
  RETURN_NOT_OK(s);
#ifndef NDEBUG
  for (const ContainerInfo& c : listed_containers) {
    DCHECK_EQ(c.data_path, LogBlockContainerWriter::DataPath(roots[c.dir_index], c.id));
    DCHECK_EQ(c.metadata_path, LogBlockContainerWriter::MetadataPath(roots[c.dir_index], c.id));
  }
#endif
  // Both files deleted since the listing: as if never listed (nothing of
  // theirs is held). Nothing moves unless one was.
  HeldFiles& files = out->metadata_files;
  size_t kept = 0;
  for (size_t i = 0; i < listed_containers.size(); i++) {
    if (!listed_containers[i].has_data && !listed_containers[i].has_metadata) continue;
    if (kept != i) {
      listed_containers[kept] = std::move(listed_containers[i]);
      std::swap(*files.slot(kept), *files.slot(i));
    }
    kept++;
  }
  listed_containers.resize(kept);
  files.Truncate(kept);
  // Report order (§4.2): data dir order as the flags give it, then container
  // id; the same order decides which copy of a duplicated id is blamed. The
  // dirs were listed in that order and each one's files sorted by id, so
  // the containers are in it already (sorting them again was a tenth of a
  // 2,000-container listing).
  DCHECK(std::is_sorted(listed_containers.begin(), listed_containers.end(),
                        [](const ContainerInfo& a, const ContainerInfo& b) {
                          return a.dir_index != b.dir_index ? a.dir_index < b.dir_index
                                                            : a.id < b.id;
                        }));
  out->containers = std::move(listed_containers);
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu
