#pragma once
/// \file
/// Not for user code (an internal header that Rotor's public headers include).
/// A slot a Dataset keeps for the runtime's derived state about it (the record layouts of the
/// parallel loops that ran over it: runtime/src/Layout.cpp), opaque here.
/// A copy of a dataset starts with an empty slot (its records lie elsewhere); a move takes the
/// slot along (the records' storage moves with it, so the layouts stay valid).

#include <memory>
#include <utility>

namespace rotor::detail {

class RuntimeCache {
public:
  RuntimeCache() = default;
  RuntimeCache(const RuntimeCache& /*other*/) {}
  RuntimeCache(RuntimeCache&& other) noexcept : state_(std::move(other.state_)) {}
  RuntimeCache& operator=(const RuntimeCache& other) {
    if (this != &other) {
      state_.reset();
    }
    return *this;
  }
  RuntimeCache& operator=(RuntimeCache&& other) noexcept {
    state_ = std::move(other.state_);
    return *this;
  }
  ~RuntimeCache() = default;

  /// The runtime's state (null until the runtime sets it).
  std::shared_ptr<void>& state() { return state_; }

private:
  std::shared_ptr<void> state_;
};

} // namespace rotor::detail
