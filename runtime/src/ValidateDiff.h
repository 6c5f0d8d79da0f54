#pragma once
/// \file
/// --rotor-validate's comparisons of a parallel loop execution with the serial replay of its
/// order (Validate.cpp): each returns the message naming the first difference, e.g.
/// "W(17, 3) = 0.52 in the parallel run, 0.49 in the serial replay of its order", or "" when
/// the two agree.

#include "rotor/runtime/detail/Engine.h"
#include "rotor/runtime/detail/LoopFrame.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace rotor::detail {

/// Bitwise, element by element (the replay is exact): `parallel` against the replay's copy.
std::string array_difference(const ArrayBinding& parallel, const char* replay);

/// Within ops.tolerance relative to the larger magnitude (0: bitwise).
std::string reduction_difference(const std::string& name, const ReductionOps& ops,
                                 const void* parallel, const void* replay);

/// The position of each id in a list of record ids: a table when the ids are dense (record ids
/// are global positions), a hash map otherwise.
class IdPositions {
public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  explicit IdPositions(const std::vector<std::uint64_t>& ids);
  /// The position of `id` (the first, if it repeats), or npos.
  std::size_t find(std::uint64_t id) const;
  bool distinct() const { return distinct_; }

private:
  bool dense_ = true;
  bool distinct_ = true;
  std::vector<std::size_t> table_;
  std::unordered_map<std::uint64_t, std::size_t> map_;
};

/// A dataset's records with their ids (all ranks' records, gathered).
struct RecordSet {
  std::vector<char> bytes;
  std::vector<std::uint64_t> ids;
};

/// Bitwise, record by record, matched by id; `replay` holds the records in replay order.
std::string record_difference(const RecordSet& parallel, const RecordSet& replay,
                              std::size_t record_bytes);

/// "" when `order` lists every id of `records` exactly once; otherwise what is wrong.
std::string order_difference(const std::vector<std::uint64_t>& order, const RecordSet& records);

/// "" when `order` lists every linear index below `points` exactly once (an index space).
std::string point_order_difference(const std::vector<std::uint64_t>& order, std::uint64_t points);

} // namespace rotor::detail
