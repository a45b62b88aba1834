// Faulting in the pages of a fresh allocation ahead of its first writes.
#pragma once

#include <cstddef>

namespace kudu {

// Makes every page of [p, p + n) present and writable, so that the writes
// that fill it later do not each take a page fault. It may write zeros
// anywhere in the range: for fresh storage whose bytes do not matter yet.
// One madvise(MADV_POPULATE_WRITE) where the kernel has it (Linux 5.14+),
// else one write per page: cheaper than a memset of the range, which would
// write again every byte the kernel has just zeroed.
void PrefaultForWrite(void* p, size_t n);

namespace internal {
// The fallback: one zero written per page of the range (tested directly).
void TouchPages(void* p, size_t n);
}  // namespace internal

}  // namespace kudu
