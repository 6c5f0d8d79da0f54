#include "ArraySync.h"

#include "Mover.h"

#include <cstring>
#include <deque>

namespace rotor::detail {
namespace {

/// The address of `box` in array `a` when its elements are one contiguous range (every
/// dimension after the first is whole), else null.
char* contiguous_range(const ArrayBinding& a, const Box& box) {
  std::size_t row = a.elem_bytes;
  for (std::size_t d = 1; d < a.shape.size(); ++d) {
    if (box.lo[d] != 0 || box.hi[d] != a.shape[d]) {
      return nullptr;
    }
    row *= static_cast<std::size_t>(a.shape[d]);
  }
  return a.data + static_cast<std::size_t>(box.lo[0]) * row;
}

/// Posts a send or receive of `bytes` at `data` in pieces below MPI's int count (matched in
/// order: both sides post the same boxes in the same order).
void post_range(std::vector<Comm::Request>& reqs, char* data, std::size_t bytes, int peer,
                bool send) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  constexpr int tag = 31002;
  for (std::size_t off = 0; off < bytes; off += piece) {
    const std::size_t len = std::min(piece, bytes - off);
    reqs.push_back(send ? comm().isend(data + off, len, peer, tag)
                        : comm().irecv(data + off, len, peer, tag));
  }
}

} // namespace

void end_sync(const MovePlan& plan, std::vector<ArrayBinding>& arrays) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size();
  std::vector<Comm::Request> reqs;
  struct Staged {
    int array = 0;
    const Box* box = nullptr;
    std::vector<char> bytes;
  };
  std::deque<Staged> staged; // stable addresses while requests are in flight
  for (int ai : plan.box_arrays) {
    ArrayBinding& a = arrays[ai];
    for (std::size_t k = 0; k < plan.end_owned[ai].size(); ++k) {
      const Box& box = plan.end_owned[ai][k];
      const int owner = plan.end_owner[ai][k];
      const std::size_t bytes = box_bytes(box, a);
      if (bytes == 0) {
        continue;
      }
      char* direct = contiguous_range(a, box);
      if (owner == me) {
        char* from = direct;
        if (!from) {
          staged.push_back(Staged{ai, &box, buffer_pool().take(bytes)});
          pack_box(a.data, a.shape, a.elem_bytes, box, staged.back().bytes.data());
          from = staged.back().bytes.data();
          staged.back().box = nullptr; // sent, nothing to unpack
        }
        for (int r = 0; r < ranks; ++r) {
          if (r != me) {
            post_range(reqs, from, bytes, r, true);
          }
        }
      } else if (direct) {
        post_range(reqs, direct, bytes, owner, false);
      } else {
        staged.push_back(Staged{ai, &box, buffer_pool().take(bytes)});
        post_range(reqs, staged.back().bytes.data(), bytes, owner, false);
      }
    }
  }
  c.wait_all(reqs);
  for (Staged& st : staged) {
    if (st.box) {
      ArrayBinding& a = arrays[st.array];
      unpack_box(a.data, a.shape, a.elem_bytes, *st.box, st.bytes.data());
    }
    buffer_pool().give(std::move(st.bytes));
  }
}

DiffSnapshots::DiffSnapshots(const std::vector<int>& diff_arrays,
                             const std::vector<ArrayBinding>& arrays)
    : arrays_(diff_arrays) {
  for (int ai : arrays_) {
    const ArrayBinding& a = arrays[ai];
    std::size_t n = a.elem_bytes;
    for (auto e : a.shape) {
      n *= static_cast<std::size_t>(e);
    }
    before_.emplace_back(a.data, a.data + n);
  }
}

void DiffSnapshots::refresh(const std::vector<ArrayBinding>& arrays) {
  for (std::size_t k = 0; k < arrays_.size(); ++k) {
    std::memcpy(before_[k].data(), arrays[arrays_[k]].data, before_[k].size());
  }
}

void DiffSnapshots::sync(std::vector<ArrayBinding>& arrays) const {
  Comm& c = comm();
  for (std::size_t k = 0; k < arrays_.size(); ++k) {
    ArrayBinding& a = arrays[arrays_[k]];
    const std::vector<char>& before = before_[k];
    std::vector<char> mine;
    const std::size_t n = before.size() / a.elem_bytes;
    for (std::size_t i = 0; i < n; ++i) {
      const char* now = a.data + i * a.elem_bytes;
      if (std::memcmp(now, before.data() + i * a.elem_bytes, a.elem_bytes) != 0) {
        std::uint64_t idx = i;
        const char* ip = reinterpret_cast<const char*>(&idx);
        mine.insert(mine.end(), ip, ip + sizeof idx);
        mine.insert(mine.end(), now, now + a.elem_bytes);
      }
    }
    std::vector<std::size_t> offsets;
    std::vector<char> all = c.allgatherv(mine.data(), mine.size(), offsets);
    for (int r = 0; r < c.size(); ++r) {
      if (r == c.rank()) {
        continue;
      }
      for (std::size_t off = offsets[r]; off < offsets[r + 1];
           off += sizeof(std::uint64_t) + a.elem_bytes) {
        std::uint64_t idx = 0;
        std::memcpy(&idx, all.data() + off, sizeof idx);
        std::memcpy(a.data + idx * a.elem_bytes, all.data() + off + sizeof idx, a.elem_bytes);
      }
    }
  }
}

} // namespace rotor::detail
