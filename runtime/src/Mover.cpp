#include "Mover.h"

#include <algorithm>
#include <cstdint>

namespace rotor::detail {

std::vector<char> BufferPool::take(std::size_t bytes) {
  std::vector<char> v;
  if (!free_.empty()) {
    v = std::move(free_.back());
    free_.pop_back();
  }
  v.resize(bytes);
  return v;
}

void BufferPool::give(std::vector<char>&& v) {
  if (v.capacity() > 0 && free_.size() < 64) {
    free_.push_back(std::move(v));
  }
}

BufferPool& buffer_pool() {
  static BufferPool pool;
  return pool;
}

std::size_t box_bytes(const Box& b, const ArrayBinding& a) {
  return static_cast<std::size_t>(b.volume()) * a.elem_bytes;
}

void Mover::post(int st) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size();
  Batch b;
  b.needed_by = INT32_MAX;
  b.in.resize(ranks);
  std::vector<std::vector<const Transfer*>> out(ranks);
  while (cursor_ < plan_.transfers.size() && plan_.transfers[cursor_].after_step == st) {
    const Transfer& t = plan_.transfers[cursor_++];
    if (t.from == me) {
      out[t.to].push_back(&t);
    } else if (t.to == me) {
      b.in[t.from].push_back(&t);
      b.needed_by = std::min(b.needed_by, t.needed_by);
    }
  }
  const int tag = st % 30000;
  post_receives(b, tag);
  post_sends(out, tag);
  if (!b.recvs.empty()) {
    b.posted = Clock::now();
    batches_.push_back(std::move(b));
  }
}

void Mover::post_receives(Batch& b, int tag) {
  Comm& c = comm();
  b.recv_buf.resize(b.in.size());
  for (int r = 0; r < static_cast<int>(b.in.size()); ++r) {
    std::size_t bytes = 0;
    for (const Transfer* t : b.in[r]) {
      bytes += box_bytes(t->box, arrays_[t->array]);
    }
    if (bytes) {
      b.recv_buf[r] = buffer_pool().take(bytes);
      b.recvs.push_back(c.irecv(b.recv_buf[r].data(), bytes, r, tag));
    }
  }
}

void Mover::post_sends(const std::vector<std::vector<const Transfer*>>& out, int tag) {
  Comm& c = comm();
  for (int r = 0; r < static_cast<int>(out.size()); ++r) {
    std::size_t bytes = 0;
    for (const Transfer* t : out[r]) {
      bytes += box_bytes(t->box, arrays_[t->array]);
    }
    if (!bytes) {
      continue;
    }
    sends_.emplace_back();
    Send& snd = sends_.back();
    snd.buffer = buffer_pool().take(bytes);
    std::size_t off = 0;
    for (const Transfer* t : out[r]) {
      const ArrayBinding& a = arrays_[t->array];
      off += pack_box(a.data, a.shape, a.elem_bytes, t->box, snd.buffer.data() + off);
    }
    stats_.bytes += bytes;
    snd.request.push_back(c.isend(snd.buffer.data(), bytes, r, tag));
  }
}

void Mover::complete_needed(int st) {
  for (Batch& b : batches_) {
    if (!b.applied && b.needed_by <= st) {
      finish(b);
    }
  }
  prune();
}

bool Mover::poll() {
  Comm& c = comm();
  bool in_flight = false;
  for (Batch& b : batches_) {
    if (!b.arrived && c.test_all(b.recvs)) {
      b.arrived = true;
      stats_.transfer_s += std::chrono::duration<double>(Clock::now() - b.posted).count();
    }
    in_flight = in_flight || !b.arrived;
  }
  for (Send& snd : sends_) {
    in_flight = !c.test_all(snd.request) || in_flight;
  }
  return in_flight;
}

void Mover::complete_all() {
  for (Batch& b : batches_) {
    if (!b.applied) {
      finish(b);
    }
  }
  batches_.clear();
  for (Send& snd : sends_) {
    comm().wait_all(snd.request);
    buffer_pool().give(std::move(snd.buffer));
  }
  sends_.clear();
}

void Mover::finish(Batch& b) {
  if (!b.arrived) {
    const auto t = Clock::now();
    comm().wait_all(b.recvs);
    const auto done = Clock::now();
    stats_.exposed_s += std::chrono::duration<double>(done - t).count();
    stats_.transfer_s += std::chrono::duration<double>(done - b.posted).count();
    b.arrived = true;
  }
  for (std::size_t r = 0; r < b.in.size(); ++r) {
    std::size_t off = 0;
    for (const Transfer* t : b.in[r]) {
      ArrayBinding& a = arrays_[t->array];
      off += unpack_box(a.data, a.shape, a.elem_bytes, t->box, b.recv_buf[r].data() + off);
    }
  }
  b.applied = true;
  for (auto& buf : b.recv_buf) {
    buffer_pool().give(std::move(buf));
  }
}

void Mover::prune() {
  batches_.erase(
      std::remove_if(batches_.begin(), batches_.end(), [](const Batch& b) { return b.applied; }),
      batches_.end());
  while (!sends_.empty() && sends_.front().request.empty()) {
    buffer_pool().give(std::move(sends_.front().buffer));
    sends_.pop_front();
  }
}

} // namespace rotor::detail
