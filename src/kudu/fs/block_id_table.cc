#include "kudu/fs/block_id_table.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace kudu {
namespace fs {

const BlockMapEntry* BlockIdTable::Find(uint64_t id, uint64_t run_hash) const {
  if (id == kEmpty) return has_empty_key_ ? &empty_key_value_ : nullptr;
  if (keys_ == nullptr) return nullptr;
  size_t p = Home(id, run_hash);
  while (true) {
    const uint64_t k = keys_[p];
    if (k == id) return &values_[p];
    if (k == kEmpty) return nullptr;
    p = (p + 1) & mask_;
  }
}

void BlockIdTable::Reserve(size_t n) {
  size_t slots = std::max<size_t>(capacity(), 2 * kRun);
  while (MaxSizeFor(slots) < n) slots *= 2;
  if (keys_ == nullptr || slots > capacity()) Rehash(slots);
}

void BlockIdTable::Grow() { Rehash(keys_ == nullptr ? 2 * kRun : 2 * capacity()); }

void BlockIdTable::Rehash(size_t slots) {
  std::unique_ptr<uint64_t[]> old_keys = std::move(keys_);
  Values old_values = std::move(values_);
  const size_t old_capacity = old_keys == nullptr ? 0 : mask_ + 1;
  keys_.reset(new uint64_t[slots]);
  // Only the keys are initialised: the value array's pages are first
  // touched by the inserts that fill them.
  values_.reset(static_cast<BlockMapEntry*>(::operator new(slots * sizeof(BlockMapEntry))));
  std::memset(keys_.get(), 0xff, slots * sizeof(uint64_t));  // every key kEmpty
  mask_ = slots - 1;
  run_shift_ = 64 - __builtin_ctzll(slots / kRun);
  max_size_ = MaxSizeFor(slots);
  size_ = 0;
  for (size_t p = 0; p < old_capacity; p++) {
    if (old_keys[p] == kEmpty) continue;
    bool inserted;
    Insert(old_keys[p], RunHash(old_keys[p]), old_values[p], &inserted);
  }
}

const BlockMapEntry* BlockIdTable::InsertEmptyKey(const BlockMapEntry& entry, bool* inserted) {
  *inserted = !has_empty_key_;
  if (*inserted) {
    has_empty_key_ = true;
    empty_key_value_ = entry;
  }
  return &empty_key_value_;
}

}  // namespace fs
}  // namespace kudu
