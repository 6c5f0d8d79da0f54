#pragma once
/// \file
/// The analysis result: dependence vectors over the key fields and the plan that runs the loop.
///
/// \code
///   rotor::analysis::LoopModel model = ...;          // from the frontend or parse_loop_model()
///   rotor::analysis::Plan plan = rotor::analysis::plan_loop(model);
///   // MF: plan.kind == PlanKind::rotation, plan.fields == {"user", "item"},
///   //     W partitioned by user, H rotating by item, dependences (0,*), (*,0).
/// \endcode
///
/// "Cannot prove" is a value, not an error: an unanalysable loop gets PlanKind::serial with a
/// reason and the blocking access. plan_loop never throws on a well-formed model.

#include "rotor/analysis/LoopModel.h"
#include "rotor/analysis/PlanVocabulary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rotor::analysis {

/// One entry of a dependence vector.
struct DepEntry {
  enum class Kind {
    distance, ///< an exact integer distance (sink key - source key)
    any,      ///< `*`: any distance
    nonneg,   ///< `+`: any distance >= 0 (arises from lexicographic normalisation)
  };
  Kind kind = Kind::any;
  std::int64_t distance = 0;     ///< kind == distance
  std::string to_string() const; ///< "0", "-1", "*", "+"
  friend bool operator==(const DepEntry& a, const DepEntry& b) {
    return a.kind == b.kind && (a.kind != Kind::distance || a.distance == b.distance);
  }
};

/// A dependence between two accesses to the same array, at least one of them a write,
/// as a vector over LoopModel::fields (lexicographically non-negative).
struct Dependence {
  std::string array;
  int source = -1;               ///< index into LoopModel::accesses
  int sink = -1;                 ///< index into LoopModel::accesses (may equal source)
  std::vector<DepEntry> entries; ///< one per LoopModel::fields entry
  std::string to_string() const; ///< "(0, *)"
};

/// The elements of one array dimension that a block of iterations may touch:
/// `field` >= 0: key values of that field (index into LoopModel::fields) shifted by [lo, hi];
/// `field` < 0: the whole dimension.
struct DimFootprint {
  int field = -1;
  Offset lo;
  Offset hi;
};

/// The role of one array under the plan.
struct ArrayPlan {
  std::string name;
  ArrayRole role = ArrayRole::replicated;
  std::string field; ///< partitioned / rotating / local: the key field of its blocks
  bool written = false;
  std::vector<DimFootprint> dims; ///< one per dimension: what a block of iterations touches
  std::string reason;             ///< why this role, in words ("rows are indexed by item; ...")
};

/// The plan for one loop (contract §2 and the `plan` object of contract §3).
struct Plan {
  PlanKind kind = PlanKind::serial;
  /// Key fields the schedule partitions by. one_d: one; rotation/wavefront: the space field first
  /// (records stay with its blocks), then the rotating fields. unimodular: the fields the matrix
  /// acts on.
  std::vector<std::string> fields;
  /// unimodular: the skew (rows over `fields`; new key = matrix * key), then `base` on new keys.
  std::vector<std::vector<std::int64_t>> matrix;
  PlanKind base = PlanKind::serial;
  std::vector<std::string> buffered; ///< arrays whose conflicts were relaxed (data_parallel, mixed)
  std::string reason;                ///< serial: why, in words
  std::optional<SourceLoc> blocking; ///< serial: where the blocking access or escape is
  std::vector<ArrayPlan> arrays;     ///< in LoopModel::arrays order
  std::vector<std::string> reductions;
  std::vector<Dependence> dependences;
  std::vector<std::string> notes;
};

/// Dependence vectors of every pair of accesses to one array with at least one write (the pair
/// of a write with itself included), over `model.fields`, lexicographically non-negative.
std::vector<Dependence> dependence_vectors(const LoopModel& model);

/// Picks the most parallel sound plan (deterministically) for `model`.
Plan plan_loop(const LoopModel& model);

/// The plan object of contract §3 as JSON text (kind, fields, arrays with roles, reductions,
/// dependences, notes; matrix / buffered / reason where the kind has them).
std::string plan_to_json(const LoopModel& model, const Plan& plan);

} // namespace rotor::analysis
