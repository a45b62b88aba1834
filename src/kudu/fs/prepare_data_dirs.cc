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

#include "kudu/fs/prepare_data_dirs.h"

#include <glog/logging.h>

#include <algorithm>
#include <iterator>
#include <thread>
#include <utility>
#include <vector>

#include "kudu/fs/key_probe.h"
#include "kudu/util/env.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace fs {

Status PrepareDataDirs(const PrepareDataDirsOptions& opts, PreparedDataDirs* p) {
  auto fail = [p](PreparedDataDirs::Failure f, const Status& s) {
    p->failure = f;
    return s;
  };
  const bool given = opts.given_key != nullptr && !opts.given_key->empty();
  Status s = LoadInstanceFiles(opts.data_roots, opts.other_roots, /*load_key=*/!given,
                               &p->instance);
  if (!s.ok()) return fail(PreparedDataDirs::Failure::kInstance, s);
  p->server_key = given ? opts.given_key : p->instance.has_key ? &p->instance.key : nullptr;
  if (opts.encrypt_data_at_rest && p->server_key == nullptr) {
    // Kudu's words (fs_manager.cc); before any lock, as in the order of an open.
    return fail(PreparedDataDirs::Failure::kKeyUsage,
                Status::InvalidArgument("--encrypt_data_at_rest is set, but no server key found."));
  }

  // The wrong-key check belongs to step 2 too: a key the dirs refuse stops
  // the open before it locks, deletes or reports anything.
  if (p->server_key != nullptr && !p->server_key->empty()) {
    s = CheckServerKey(opts.data_roots, *p->server_key, &p->key_check_reads);
    if (!s.ok()) {
      // Where the key came from is where the operator looks next.
      const std::string source =
          given ? "the key given on the command line" : "the key of " + p->instance.key_file;
      return fail(PreparedDataDirs::Failure::kKeyUsage,
                  Status::InvalidArgument(s.message() + " (" + source + ")"));
    }
  }

  // Only after every instance file has been read: closing a descriptor of a
  // locked file drops the lock (dir_lock.h).
  if (p->instance.has_dir_instances) {
    for (const std::string& root : opts.data_roots) {
      std::unique_ptr<InstanceFileLock> lock;
      s = InstanceFileLock::Acquire(DirInstanceFilePath(root), &lock);
      if (s.ok()) {
        p->locks.push_back(std::move(lock));
        continue;
      }
      if (opts.read_write) {
        p->locks.clear();  // a read-write open without every lock changes nothing
        return fail(PreparedDataDirs::Failure::kLock, s);
      }
      LOG(WARNING) << s.ToString() << ". Proceeding without lock";
      p->unlocked_dirs.push_back(UnlockedDir{env::JoinPath(root, "data"), s.ToString()});
    }
  }

  // Each dir's walk reads its data/, one entry after another in the kernel;
  // a server's dirs are on different disks, and are walked at once.
  const size_t dirs = opts.data_roots.size();
  p->data_dir_names.resize(dirs);
  std::vector<TemporaryFiles> found(dirs);
  ParallelFor("dir-walk", dirs, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
              [&](size_t d) {
                // The names of data/ itself, for the container listing: each
                // data/ is read once (a walk that fails leaves the listing to
                // read it and report why).
                std::vector<std::string> names;
                if (FindTemporaryFiles(env::JoinPath(opts.data_roots[d], "data"), &found[d], &names)
                        .ok()) {
                  p->data_dir_names[d] = std::move(names);
                }
              });
  TemporaryFilesOfDirs all;
  for (size_t d = 0; d < dirs; d++) {
    all.Add(env::JoinPath(opts.data_roots[d], "data"), std::move(found[d]));
  }
  p->temp_files = all.Take();
  TemporaryFiles& t = p->temp_files;
  if (!opts.read_write) return Status::OK();
  for (const std::string& path : t.only_copies) {
    LOG(WARNING) << path << ": kept: its container's .metadata file does not exist, so this may "
                 << "be the only copy of that container's records. A Kudu server starting on "
                 << "this dir, in any mode, deletes it";
  }
  if (!DeleteTemporaryFiles(&t).ok()) {
    LOG(ERROR) << "Could not delete temporary file " << t.failed_path << ": "
               << t.failure.ToString() << "; no repair runs";
  }
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu
