#pragma once
/// \file
/// Stable grouping of records by bucket (their cell, or their destination rank), in place.
///
/// The layout used to compute a stable counting order and apply it cycle by cycle. Each step of a
/// cycle reads one record at a random place, which made laying out 9M sgd_mf ratings take 2 s
/// (8 epochs' worth of SGD). Here the records are read once, in order, into one small buffer per
/// bucket; a full buffer goes back into the array as a block, into space already read; the
/// blocks are then put in bucket order (block-sized copies) and the buckets' remainders inserted.
/// Every access is sequential or block-sized, and the extra memory is about `buckets` blocks.

#include <cstddef>
#include <cstring>
#include <functional>
#include <vector>

namespace rotor::detail {

/// One of the parallel arrays moved with the records: row i lies at data + i * width.
struct RowColumn {
  char* data;
  std::size_t width;
};

/// Copies one row of `width` bytes: fixed-size copies for the common widths (a record, an id, an
/// origin) compile to plain moves, where a memcpy call per row of each column cost more than
/// the rest of a grouping pass.
inline void copy_row(char* dst, const char* src, std::size_t width) {
  switch (width) {
  case 2:
    std::memcpy(dst, src, 2);
    break;
  case 4:
    std::memcpy(dst, src, 4);
    break;
  case 8:
    std::memcpy(dst, src, 8);
    break;
  case 12:
    std::memcpy(dst, src, 12);
    break;
  case 16:
    std::memcpy(dst, src, 16);
    break;
  default:
    std::memcpy(dst, src, width);
  }
}

/// Rows in one block for `buckets` buckets over n rows of `row_bytes`, or 0 when there are too
/// many buckets for blocks to pay off (the caller then permutes record by record).
std::size_t bucket_block_rows(std::size_t n, int buckets, std::size_t row_bytes);

/// Reorders rows [0, n) of `columns` so that their buckets increase and rows keep their relative
/// order inside a bucket. `starts` holds the buckets' boundaries (buckets + 1 of them, from
/// counting); `bucket(i)` is row i's bucket, asked once per row, in row order, while row i is
/// still in place; `block` comes from bucket_block_rows.
void stable_bucket_in_place(const std::vector<std::size_t>& starts,
                            const std::function<int(std::size_t)>& bucket,
                            const std::vector<RowColumn>& columns, std::size_t block);

} // namespace rotor::detail
