#include "Replication.h"

#include "Comm.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace rotor::detail {

void replicate(SpaceAccess& space) {
  Comm& c = comm();
  if (space.is_index_space() || !space.distributed()) {
    return;
  }
  if (c.size() == 1) {
    space.resize_local(space.local_count(), false);
    return;
  }
  std::vector<std::uint32_t>* origin = space.origin();
  std::int64_t with_origin = origin && !origin->empty() ? 1 : 0;
  c.allreduce_max(&with_origin, 1);
  if (with_origin) {
    std::vector<std::size_t> o_offs;
    std::vector<char> o = c.allgatherv(origin->data(), origin->size() * 4, o_offs);
    origin->resize(o.size() / 4);
    std::memcpy(origin->data(), o.data(), o.size());
  }
  std::vector<std::size_t> offs;
  std::vector<char> all =
      c.allgatherv(space.record_data(), space.local_count() * space.record_bytes(), offs);
  std::vector<std::uint64_t> ids;
  if (!space.ids().empty()) {
    std::vector<std::size_t> id_offs;
    std::vector<char> id_bytes =
        c.allgatherv(space.ids().data(), space.ids().size() * sizeof(std::uint64_t), id_offs);
    ids.resize(id_bytes.size() / sizeof(std::uint64_t));
    std::memcpy(ids.data(), id_bytes.data(), id_bytes.size());
  }
  space.replace(std::move(all), std::move(ids), false);
}

void restore_order(SpaceAccess& space) {
  std::vector<std::uint32_t>* origin = space.origin();
  if (!origin || origin->empty()) {
    return;
  }
  const std::size_t n = space.local_count(), rb = space.record_bytes();
  std::vector<std::uint32_t>& o = *origin;
  if (o.size() != n) {
    throw std::logic_error("rotor: internal: record positions do not match the records");
  }
  std::vector<bool> seen(n, false);
  for (std::uint32_t p : o) {
    if (p >= n || seen[p]) {
      throw std::logic_error("rotor: internal: record positions are not a permutation");
    }
    seen[p] = true;
  }
  char* recs = space.record_data();
  auto& ids = space.ids();
  const bool with_ids = ids.size() == n;
  std::vector<char> tmp(rb);
  for (std::size_t i = 0; i < n; ++i) {
    while (o[i] != i) {
      const std::size_t j = o[i];
      std::memcpy(tmp.data(), recs + j * rb, rb);
      std::memcpy(recs + j * rb, recs + i * rb, rb);
      std::memcpy(recs + i * rb, tmp.data(), rb);
      if (with_ids) {
        std::swap(ids[i], ids[j]);
      }
      std::swap(o[i], o[j]);
    }
  }
  o = std::vector<std::uint32_t>();
  if (std::uint64_t* version = space.version()) {
    ++*version; // cached layouts no longer match the order
  }
}

} // namespace rotor::detail
