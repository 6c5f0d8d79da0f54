#include "rotor/gpu/BlockedRatings.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace rotor::gpu {

std::int64_t block_first_key(int b, std::int64_t extent, int blocks) {
  // key_block(key) = key * blocks / extent >= b  <=>  key >= ceil(b * extent / blocks)
  return (static_cast<std::int64_t>(b) * extent + blocks - 1) / blocks;
}

BlockedRatings block_ratings(const std::int32_t* user, const std::int32_t* item, const float* value,
                             std::size_t records, std::int32_t users, std::int32_t items,
                             int blocks, const WaveOptions& options) {
  const auto per_block = split_into_blocks(user, item, records, users, items, blocks);
  BlockedRatings out;
  out.blocks = blocks;
  out.users = users;
  out.items = items;
  out.user.reserve(records);
  out.item.reserve(records);
  out.value.reserve(records);
  out.source.reserve(records);
  out.block_start.push_back(0);
  std::vector<std::int32_t> u, i;
  for (const auto& recs : per_block) {
    u.clear();
    i.clear();
    for (auto r : recs) {
      u.push_back(user[r]);
      i.push_back(item[r]);
    }
    const Waves w = build_waves(u.data(), i.data(), u.size(), users, items, options);
    for (auto p : w.order) {
      const std::int64_t r = recs[static_cast<std::size_t>(p)];
      out.user.push_back(user[r]);
      out.item.push_back(item[r]);
      out.value.push_back(value[r]);
      out.source.push_back(r);
    }
    out.block_start.push_back(static_cast<std::int64_t>(out.user.size()));
    out.wave_start.push_back(w.wave_start.empty() ? std::vector<std::int64_t>{0} : w.wave_start);
  }
  return out;
}

BlockBytes block_bytes(const BlockedRatings& r, int k) {
  if (k < 1) {
    throw std::invalid_argument("block_bytes: k must be >= 1, got " + std::to_string(k));
  }
  BlockBytes b;
  b.user_blocks = b.item_blocks = r.blocks;
  const std::uint64_t row = static_cast<std::uint64_t>(k) * sizeof(float);
  for (int x = 0; x < r.blocks * r.blocks; ++x) {
    b.records.push_back(static_cast<std::uint64_t>(r.block_records(x)) * 12);
  }
  for (int x = 0; x < r.blocks; ++x) {
    b.user_rows.push_back(static_cast<std::uint64_t>(block_first_key(x + 1, r.users, r.blocks) -
                                                     block_first_key(x, r.users, r.blocks)) *
                          row);
    b.item_rows.push_back(static_cast<std::uint64_t>(block_first_key(x + 1, r.items, r.blocks) -
                                                     block_first_key(x, r.items, r.blocks)) *
                          row);
  }
  return b;
}

std::vector<char> records_slot_layout(const BlockedRatings& r) {
  std::vector<char> out(r.user.size() * 12);
  for (int b = 0; b < r.blocks * r.blocks; ++b) {
    const auto start = static_cast<std::size_t>(r.block_start[static_cast<std::size_t>(b)]);
    const auto n = static_cast<std::size_t>(r.block_records(b));
    char* base = out.data() + start * 12;
    std::memcpy(base, r.user.data() + start, n * 4);
    std::memcpy(base + n * 4, r.item.data() + start, n * 4);
    std::memcpy(base + n * 8, r.value.data() + start, n * 4);
  }
  return out;
}

std::vector<std::int32_t> key_sequence(const std::vector<std::int32_t>& key, std::int32_t extent) {
  std::vector<std::int32_t> seen(static_cast<std::size_t>(std::max(extent, 0)), 0);
  std::vector<std::int32_t> seq(key.size());
  for (std::size_t p = 0; p < key.size(); ++p) {
    if (key[p] < 0 || key[p] >= extent) {
      throw std::invalid_argument("key_sequence: position " + std::to_string(p) + " has key " +
                                  std::to_string(key[p]) + " outside [0, " +
                                  std::to_string(extent) + ")");
    }
    seq[p] = seen[static_cast<std::size_t>(key[p])]++;
  }
  return seq;
}

std::vector<BlockId> single_gpu_rotation_order(int blocks, int epochs) {
  if (blocks < 1 || epochs < 0) {
    throw std::invalid_argument("single_gpu_rotation_order: blocks must be >= 1 and epochs >= 0");
  }
  std::vector<BlockId> order;
  for (int e = 0; e < epochs; ++e) {
    for (int u = 0; u < blocks; ++u) {
      for (int p = 0; p < blocks; ++p) {
        order.push_back({u, (u + p) % blocks});
      }
    }
  }
  return order;
}

} // namespace rotor::gpu
