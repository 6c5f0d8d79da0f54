#include "BucketInPlace.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace rotor::detail {
namespace {

/// Copies `rows` rows from row `from` of every column's `src` to row `to` of its `dst` (memmove:
/// the ranges may overlap).
void move_rows(const std::vector<RowColumn>& src, std::size_t from,
               const std::vector<RowColumn>& dst, std::size_t to, std::size_t rows) {
  if (rows == 0) {
    return; // an empty array's data may be null, which memmove must not get even for 0 bytes
  }
  for (std::size_t c = 0; c < src.size(); ++c) {
    const std::size_t w = src[c].width;
    std::memmove(dst[c].data + to * w, src[c].data + from * w, rows * w);
  }
}

} // namespace

/// The buffers (one block per bucket plus one for the block permutation) use about 1/16 of the
/// records' bytes, at least 1 MiB and at most 16 MiB.
std::size_t bucket_block_rows(std::size_t n, int buckets, std::size_t row_bytes) {
  row_bytes = std::max<std::size_t>(row_bytes, 1);
  const std::size_t budget =
      std::clamp<std::size_t>(n * row_bytes / 16, std::size_t{1} << 20, std::size_t{16} << 20);
  const std::size_t rows = std::min(budget / ((static_cast<std::size_t>(buckets) + 1) * row_bytes),
                                    std::max<std::size_t>(n, 1));
  return rows >= 64 || rows >= n ? rows : 0;
}

void stable_bucket_in_place(const std::vector<std::size_t>& starts,
                            const std::function<int(std::size_t)>& bucket,
                            const std::vector<RowColumn>& columns, const std::size_t B) {
  const std::size_t nb = starts.size() - 1;
  const std::size_t n = starts.back();

  // 1. rows in order into their bucket's buffer; a full buffer becomes the next block of the
  // array. Block e (rows [e B, (e + 1) B)) has been read by then: the buffers hold at least B
  // rows beyond the e blocks written, so at least (e + 1) B rows were read.
  std::vector<std::vector<char>> storage(columns.size());
  std::vector<RowColumn> buffer(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    storage[c].resize((nb + 1) * B * columns[c].width);
    buffer[c] = {storage[c].data(), columns[c].width};
  }
  std::vector<std::size_t> fill(nb, 0);
  std::vector<int> block_bucket; // bucket of block e, written in order
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::size_t>(bucket(i));
    for (std::size_t c = 0; c < columns.size(); ++c) { // a buffer never overlaps the rows
      const std::size_t w = columns[c].width;
      copy_row(buffer[c].data + (b * B + fill[b]) * w, columns[c].data + i * w, w);
    }
    if (++fill[b] == B) {
      move_rows(buffer, b * B, columns, block_bucket.size() * B, B);
      block_bucket.push_back(static_cast<int>(b));
      fill[b] = 0;
    }
  }

  // 2. blocks in bucket order (stable: a bucket's blocks in the order written), cycle by cycle
  // through the spare block at the buffers' end
  std::vector<std::size_t> first_block(nb + 1, 0);
  for (int b : block_bucket) {
    ++first_block[static_cast<std::size_t>(b) + 1];
  }
  std::partial_sum(first_block.begin(), first_block.end(), first_block.begin());
  const std::size_t blocks = block_bucket.size();
  std::vector<std::size_t> target(blocks);
  {
    std::vector<std::size_t> next(first_block.begin(), first_block.end() - 1);
    for (std::size_t e = 0; e < blocks; ++e) {
      target[e] = next[static_cast<std::size_t>(block_bucket[e])]++;
    }
  }
  const std::size_t spare = nb * B;
  for (std::size_t start = 0; start < blocks; ++start) {
    if (target[start] == start) {
      continue;
    }
    // the block at `start` goes to target[start], whose block goes on, until the cycle closes
    move_rows(columns, start * B, buffer, spare, B);
    std::size_t e = start;
    while (target[e] != start) {
      const std::size_t to = target[e];
      // swap the carried block (in the spare) with the block at `to`: carry that one next
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::size_t w = columns[c].width;
        std::swap_ranges(buffer[c].data + spare * w, buffer[c].data + (spare + B) * w,
                         columns[c].data + to * B * w);
      }
      target[e] = e;
      e = to;
    }
    move_rows(buffer, spare, columns, start * B, B);
    target[e] = e;
  }

  // 3. from the last bucket to the first: its blocks slide right to the bucket's start, its
  // buffer's remainder follows them (everything left of them is earlier buckets' blocks)
  for (std::size_t b = nb; b-- > 0;) {
    const std::size_t rows = (first_block[b + 1] - first_block[b]) * B;
    move_rows(columns, first_block[b] * B, columns, starts[b], rows);
    move_rows(buffer, b * B, columns, starts[b] + rows, fill[b]);
  }
}

} // namespace rotor::detail
