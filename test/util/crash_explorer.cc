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

#include "util/crash_explorer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <unordered_set>
#include <utility>

#include "kudu/util/env.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

CrashExplorer::CrashExplorer(std::string root, Options opts)
    : root_(std::move(root)), opts_(opts) {}

Status CrashExplorer::Relative(const std::string& path, std::string* rel) const {
  if (path == root_) {
    *rel = "";
    return Status::OK();
  }
  if (path.compare(0, root_.size() + 1, root_ + "/") != 0) {
    return Status::InvalidArgument(path + ": outside the explored tree " + root_);
  }
  *rel = path.substr(root_.size() + 1);
  return Status::OK();
}

Status CrashExplorer::Snapshot() {
  snapshot_ = Image();
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root_, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::string rel;
    RETURN_NOT_OK(Relative(it->path().string(), &rel));
    if (it->is_directory()) {
      snapshot_.dirs.insert(rel);
    } else if (it->is_regular_file()) {
      std::string bytes;
      RETURN_NOT_OK(ReadFileToString(it->path().string(), &bytes));
      snapshot_.names[rel] = static_cast<int>(snapshot_.inodes.size());
      snapshot_.inodes.push_back(std::move(bytes));
    }
  }
  if (ec) return Status::IOError(root_ + ": snapshot: " + ec.message());
  return Status::OK();
}

Status CrashExplorer::AddStep(const std::vector<IoRecord>& log) {
  for (const IoRecord& r : log) {
    Op op;
    op.rec = r;
    op.rec.path.clear();
    op.rec.to.clear();
    RETURN_NOT_OK(Relative(r.path, &op.path));
    if (r.kind == IoRecord::Kind::kRename) RETURN_NOT_OK(Relative(r.to, &op.to));
    op.step = step_ends_.size();
    ops_.push_back(std::move(op));
  }
  step_ends_.push_back(ops_.size());
  return Status::OK();
}

std::string CrashExplorer::DescribeLog() const {
  std::string out;
  for (size_t i = 0; i < ops_.size(); i++) {
    const Op& op = ops_[i];
    out += std::to_string(i) + " " + IoRecordKindName(op.rec.kind) + " " + op.path;
    if (!op.to.empty()) out += " -> " + op.to;
    if (op.rec.kind == IoRecord::Kind::kWrite || op.rec.kind == IoRecord::Kind::kPunchHole) {
      out += " @" + std::to_string(op.rec.offset) + "+" + std::to_string(op.rec.length);
    } else if (op.rec.kind == IoRecord::Kind::kTruncate) {
      out += " to " + std::to_string(op.rec.offset);
    }
    out += "\n";
  }
  return out;
}

// One pass over the log as the running program saw it (nothing lost):
// which inode each operation acts on, and which later fsync makes it
// durable.
Status CrashExplorer::Classify() {
  std::map<std::string, int> names = snapshot_.names;
  int next_inode = static_cast<int>(snapshot_.inodes.size());
  // Un-durable ops waiting for an fsync, by inode and by directory.
  std::map<int, std::vector<size_t>> pending_content;
  std::map<std::string, std::vector<size_t>> pending_dir;
  std::vector<size_t> dirs_left(ops_.size(), 0);  // directories still to be synced
  auto lookup = [&](const Op& op, int* inode) -> Status {
    auto it = names.find(op.path);
    if (it == names.end()) {
      return Status::InvalidArgument(op.path + ": " + IoRecordKindName(op.rec.kind) +
                                     " of a file that does not exist at that point of the log");
    }
    *inode = it->second;
    return Status::OK();
  };
  auto wait_dir = [&](size_t i, const std::string& path) {
    pending_dir[env::DirName("/" + path).substr(1)].push_back(i);
    dirs_left[i]++;
  };
  for (size_t i = 0; i < ops_.size(); i++) {
    Op& op = ops_[i];
    switch (op.rec.kind) {
      case IoRecord::Kind::kCreate:
        if (names.count(op.path) != 0) {
          // O_TRUNC of an existing file: a change of its contents.
          op.inode = names[op.path];
          pending_content[op.inode].push_back(i);
        } else {
          op.dir_op = true;
          op.inode = next_inode++;
          names[op.path] = op.inode;
          wait_dir(i, op.path);
        }
        break;
      case IoRecord::Kind::kWrite:
      case IoRecord::Kind::kTruncate:
      case IoRecord::Kind::kPunchHole:
        RETURN_NOT_OK(lookup(op, &op.inode));
        pending_content[op.inode].push_back(i);
        break;
      case IoRecord::Kind::kSyncFile:
        op.sync = true;
        RETURN_NOT_OK(lookup(op, &op.inode));
        for (size_t j : pending_content[op.inode]) ops_[j].durable_at = i;
        pending_content[op.inode].clear();
        break;
      case IoRecord::Kind::kRename:
        op.dir_op = true;
        RETURN_NOT_OK(lookup(op, &op.inode));
        names.erase(op.path);
        names[op.to] = op.inode;
        wait_dir(i, op.path);
        if (env::DirName("/" + op.to) != env::DirName("/" + op.path)) wait_dir(i, op.to);
        break;
      case IoRecord::Kind::kUnlink:
        op.dir_op = true;
        RETURN_NOT_OK(lookup(op, &op.inode));
        names.erase(op.path);
        wait_dir(i, op.path);
        break;
      case IoRecord::Kind::kMkdir:
        op.dir_op = true;
        wait_dir(i, op.path);
        break;
      case IoRecord::Kind::kSyncDir:
        op.sync = true;
        for (size_t j : pending_dir[op.path]) {
          // Durable once the last of its directories is synced.
          if (--dirs_left[j] == 0) ops_[j].durable_at = i;
        }
        pending_dir[op.path].clear();
        break;
    }
  }
  inode_count_ = next_inode;
  return Status::OK();
}

void CrashExplorer::Apply(const Op& op, Keep keep, size_t pieces, Image* img) const {
  std::string* data = op.inode >= 0 ? &img->inodes[op.inode] : nullptr;
  switch (op.rec.kind) {
    case IoRecord::Kind::kCreate:
      if (op.dir_op) {
        img->names[op.path] = op.inode;
      } else if (op.rec.truncate) {
        data->clear();
      }
      break;
    case IoRecord::Kind::kWrite: {
      uint64_t begin = op.rec.offset;
      uint64_t end = op.rec.offset + op.rec.bytes.size();
      if (keep == Keep::kTorn) {
        // Whole pieces of the file, from the write's start: the first piece
        // ends at the first piece boundary after it.
        const uint64_t p = opts_.piece_bytes;
        end = std::min(end, (begin / p + pieces) * p);
      }
      if (data->size() < end) data->resize(end, '\0');
      if (keep == Keep::kZeros) {
        std::fill(data->begin() + begin, data->begin() + end, '\0');
      } else {
        data->replace(begin, end - begin, op.rec.bytes, 0, end - begin);
      }
      break;
    }
    case IoRecord::Kind::kTruncate:
      data->resize(op.rec.offset, '\0');
      break;
    case IoRecord::Kind::kPunchHole: {
      const uint64_t begin = std::min<uint64_t>(op.rec.offset, data->size());
      const uint64_t end = std::min<uint64_t>(op.rec.offset + op.rec.length, data->size());
      std::fill(data->begin() + begin, data->begin() + end, '\0');
      break;
    }
    case IoRecord::Kind::kRename: {
      auto it = img->names.find(op.path);
      if (it != img->names.end() && it->second == op.inode) img->names.erase(it);
      img->names[op.to] = op.inode;
      break;
    }
    case IoRecord::Kind::kUnlink: {
      auto it = img->names.find(op.path);
      if (it != img->names.end() && it->second == op.inode) img->names.erase(it);
      break;
    }
    case IoRecord::Kind::kMkdir:
      img->dirs.insert(op.path);
      break;
    case IoRecord::Kind::kSyncFile:
    case IoRecord::Kind::kSyncDir:
      break;
  }
}

CrashExplorer::Image CrashExplorer::Build(size_t prefix, const std::function<Keep(size_t)>& keep,
                                          size_t pieces) const {
  Image img = snapshot_;
  img.inodes.resize(inode_count_);
  for (size_t i = 0; i < prefix; i++) {
    const Op& op = ops_[i];
    if (op.sync) continue;
    const Keep k = op.durable_at < prefix ? Keep::kYes : keep(i);
    if (k != Keep::kNo) Apply(op, k, pieces, &img);
  }
  return img;
}

std::string CrashExplorer::Fingerprint(const Image& img) {
  std::string f;
  for (const std::string& d : img.dirs) f += "d " + d + '\0';
  for (const auto& kv : img.names) {
    const std::string& bytes = img.inodes[kv.second];
    f += "f " + kv.first + '\0' + std::to_string(bytes.size()) + '\0';
    f += std::to_string(std::hash<std::string>()(bytes)) + '\0';
  }
  return f;
}

Status CrashExplorer::Materialize(const Image& img, const std::string& into) const {
  if (env::FileExists(into)) RETURN_NOT_OK(env::DeleteRecursively(into));
  RETURN_NOT_OK(env::CreateDirs(into));
  for (const std::string& d : img.dirs) {
    if (!d.empty()) RETURN_NOT_OK(env::CreateDirs(into + "/" + d));
  }
  for (const auto& kv : img.names) {
    const std::string path = into + "/" + kv.first;
    const std::string& bytes = img.inodes[kv.second];
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::FromErrno(path, errno);
    // Runs of zero pieces stay holes: data files are mostly zeros.
    const size_t p = opts_.piece_bytes;
    for (size_t off = 0; off < bytes.size(); off += p) {
      const size_t n = std::min(p, bytes.size() - off);
      if (std::all_of(bytes.begin() + off, bytes.begin() + off + n, [](char c) { return c == 0; })) {
        continue;
      }
      if (::pwrite(fd, bytes.data() + off, n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) {
        const int err = errno;
        ::close(fd);
        return Status::FromErrno(path + ": write", err);
      }
    }
    const bool sized = ::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0;
    const int err = errno;
    ::close(fd);
    if (!sized) return Status::FromErrno(path + ": truncate", err);
  }
  return Status::OK();
}

Status CrashExplorer::Explore(const std::string& into,
                              const std::function<bool(const State&)>& visit, Counts* counts) {
  *counts = Counts();
  RETURN_NOT_OK(Classify());
  std::unordered_set<std::string> seen;
  bool go_on = true;
  for (size_t prefix = 0; prefix <= ops_.size() && go_on; prefix++) {
    State st;
    st.prefix = prefix;
    st.steps_done = static_cast<size_t>(
        std::upper_bound(step_ends_.begin(), step_ends_.end(), prefix) - step_ends_.begin());
    std::vector<size_t> dir_ops, content_ops, writes;  // not durable in this prefix
    for (size_t i = 0; i < prefix; i++) {
      const Op& op = ops_[i];
      if (op.sync || op.durable_at < prefix) continue;
      (op.dir_op ? dir_ops : content_ops).push_back(i);
      if (op.rec.kind == IoRecord::Kind::kWrite) writes.push_back(i);
    }
    auto try_state = [&](const std::string& what, const std::function<Keep(size_t)>& keep,
                         size_t pieces) -> Status {
      Image img = Build(prefix, keep, pieces);
      counts->generated++;
      // The same files after more acknowledged steps are a different claim.
      if (!seen.insert(Fingerprint(img) + std::to_string(st.steps_done)).second) {
        return Status::OK();
      }
      counts->distinct++;
      RETURN_NOT_OK(Materialize(img, into));
      st.what = what;
      go_on = visit(st);
      return Status::OK();
    };
    auto is_dir_op = [&](size_t i) { return ops_[i].dir_op; };
    RETURN_NOT_OK(try_state("nothing un-synced kept", [](size_t) { return Keep::kNo; }, 0));
    if (go_on) RETURN_NOT_OK(try_state("everything kept", [](size_t) { return Keep::kYes; }, 0));
    // The directory operations up to each point of their order.
    for (size_t j = 1; j < dir_ops.size() && go_on; j++) {
      const size_t last = dir_ops[j - 1];
      for (bool contents : {true, false}) {
        if (!go_on) break;
        RETURN_NOT_OK(try_state(
            "the first " + std::to_string(j) + " un-synced directory operations kept, file " +
                (contents ? "contents kept" : "contents lost"),
            [&](size_t i) {
              if (is_dir_op(i)) return i <= last ? Keep::kYes : Keep::kNo;
              return contents ? Keep::kYes : Keep::kNo;
            },
            0));
      }
    }
    // Files reach the disk independently of each other: one file's
    // un-synced changes lost from its j-th on, everything else kept.
    std::map<int, std::vector<size_t>> by_inode;
    for (size_t i : content_ops) by_inode[ops_[i].inode].push_back(i);
    if (by_inode.size() > 1) {
      for (const auto& kv : by_inode) {
        const int inode = kv.first;
        for (size_t from : kv.second) {
          if (!go_on) break;
          RETURN_NOT_OK(try_state(
              "every un-synced change kept but those of one file from op " + std::to_string(from),
              [&, inode, from](size_t i) {
                return ops_[i].inode == inode && !ops_[i].dir_op && i >= from ? Keep::kNo
                                                                               : Keep::kYes;
              },
              0));
        }
      }
    }
    if (opts_.reorder_dir_ops && dir_ops.size() > 1) {
      for (size_t d : dir_ops) {
        if (!go_on) break;
        RETURN_NOT_OK(try_state("every un-synced operation kept but op " + std::to_string(d),
                                [d](size_t i) { return i == d ? Keep::kNo : Keep::kYes; }, 0));
      }
    }
    // Torn writes, the latest ones first.
    const size_t first = writes.size() > opts_.max_torn_writes
                             ? writes.size() - opts_.max_torn_writes : 0;
    for (size_t w = first; w < writes.size() && go_on; w++) {
      const size_t i = writes[w];
      const IoRecord& r = ops_[i].rec;
      const uint64_t p = opts_.piece_bytes;
      const uint64_t pieces = (r.offset + r.bytes.size() + p - 1) / p - r.offset / p;
      for (size_t k = 1; k < pieces && k <= opts_.max_pieces_per_write && go_on; k++) {
        RETURN_NOT_OK(try_state("op " + std::to_string(i) + " torn after " + std::to_string(k) +
                                    " pieces, the rest kept",
                                [i](size_t x) { return x == i ? Keep::kTorn : Keep::kYes; }, k));
      }
      if (go_on && opts_.zeroed_writes) {
        RETURN_NOT_OK(try_state("op " + std::to_string(i) + " reached the disk as zeros",
                                [i](size_t x) { return x == i ? Keep::kZeros : Keep::kYes; }, 0));
      }
    }
  }
  return Status::OK();
}

}  // namespace test
}  // namespace kudu
