#pragma once
/// \file
/// The loop model: everything the dependence analysis knows about one annotated loop.
///
/// The frontend lowers a Clang AST to this model; tests and `rotor-deps` build it from the text
/// format (LoopModelText.h). Nothing here knows about Clang, MPI or the runtime.
///
/// Example: the SGD matrix-factorization loop
/// \code
///   #pragma rotor parallel_for
///   for (const Rating& r : ratings) {
///     auto w = W.row(r.user); auto h = H.row(r.item);
///     float e = r.value - w.dot(h); loss += e * e;
///     w += lr * (e * h - reg * w); h += lr * (e * w - reg * h);
///   }
/// \endcode
/// is a Dataset loop with key fields {user, item}; accesses W[user + 0][whole] (read, write),
/// H[item + 0][whole] (read, write); a sum reduction `loss`; no escapes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rotor::analysis {

/// Where something is in the user's source. `file` may be empty for models built in tests.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
};

/// The kind of iteration space.
enum class SpaceKind {
  dataset,     ///< rotor::Dataset<Record>: two records may share key values.
  index_space, ///< rotor::IndexSpace<N>: every point is unique (fields i0, i1, ...).
};

/// A loop-invariant integer: a number, or a named value the analysis cannot see (a variable
/// declared outside the loop and not written in it). Two symbolic values are equal only when they
/// have the same name and no number; a symbol never equals a number.
struct Offset {
  std::int64_t value = 0; ///< The numeric part.
  std::string symbol;     ///< Empty when the offset is the number `value`; else `symbol + value`.

  bool is_numeric() const { return symbol.empty(); }
  friend bool operator==(const Offset& a, const Offset& b) {
    return a.value == b.value && a.symbol == b.symbol;
  }
  friend bool operator!=(const Offset& a, const Offset& b) { return !(a == b); }
};

/// How one dimension of an array access is indexed.
struct Subscript {
  enum class Kind {
    constant, ///< the same element in every iteration: `A[3]`, `A[c]` (offset holds it)
    key,      ///< key field plus a loop-invariant offset: `A[r.user]`, `A[i0 - 1]`, `A[r.item + s]`
    whole,    ///< any element of the dimension: `A.row(u)`'s columns, an inner `for k` index
    unknown,  ///< anything else: `A[r.user % 8]`, `A[perm[r.user]]`, a feature id read from data
  };
  Kind kind = Kind::unknown;
  int field = -1;   ///< kind == key: index into LoopModel::fields.
  Offset offset;    ///< kind == key: the offset; kind == constant: the constant.
  std::string text; ///< The subscript as written, for diagnostics (may be empty).

  static Subscript constant(Offset value, std::string text = {});
  static Subscript key(int field, Offset offset = {}, std::string text = {});
  static Subscript whole(std::string text = {});
  static Subscript unknown(std::string text = {});
};

/// One access to a parameter array (a rotor::DistArray) in the loop body.
struct Access {
  std::string array;                 ///< Name of the array (as written in the loop).
  bool write = false;                ///< Read-modify-write and "not sure" count as writes.
  std::vector<Subscript> subscripts; ///< One per array dimension.
  SourceLoc loc;
  std::string text; ///< The access as written (`W.row(r.user)`), for reports.
};

/// A parameter array used in the loop.
struct ArrayDecl {
  std::string name;
  int rank = 1;        ///< Number of dimensions.
  std::string element; ///< Element type as written (`float`), informational.
  /// A std::vector used as rows `v[key * stride + j]` (rank 2: row, whole row)
  /// (docs/design/containers.md).
  bool row_vector = false;
  /// A plain container (row_vector, or an Eigen::Matrix).
  bool container = false;
  /// Whether buffered(...) may name it (suggestions only offer these): every DistArray, and a
  /// std::vector, std::array or T* table the loop body names only by its own name; not a
  /// std::vector<std::vector>, a T** table or an Eigen::Matrix.
  bool bufferable = true;
};

/// A scalar declared outside the loop and changed only by `+=` / `-=`, or a rotor::Accumulator.
struct Reduction {
  std::string name;
  std::string op = "+"; ///< "+" for += / -=; otherwise the Accumulator's operation name.
  SourceLoc loc;
};

/// A variable declared outside the loop of which each worker gets its own copy
/// (docs/user/annotating-loops.md, "Scratch buffers and private state").
struct Private {
  std::string name;
  /// true: named in the pragma's `private(...)` (the user accepts per-worker state: the loop is
  /// no longer equivalent to a serial order); false: a scratch buffer every iteration writes
  /// whole before reading it (privatised automatically, still serial-equivalent).
  bool from_clause = false;
  SourceLoc loc;
  /// `private(random)` / `private(rand)`: libc's generator, one per worker (not a variable).
  bool libc = false;
  /// A scratch scalar: a temporary every iteration assigns before reading it (not a buffer).
  bool scalar = false;
  /// A `private(...)` generator (a type with a `seed(...)` member): each worker's copy is
  /// re-seeded (rotor/runtime/Private.h).
  bool generator = false;
};

/// Something the loop does that the analysis cannot reason about; any escape makes the plan
/// `serial` (with the escape as the reason), whatever the accesses say.
struct Escape {
  enum class Kind {
    outside_write, ///< a write to a variable declared outside the loop that is not a reduction
    pointer_taken, ///< a pointer or reference whose target cannot be followed (`data()`, raw
                   ///< pointers)
    unknown_call,  ///< a call whose effects are unknown (invisible body, recursion, virtual)
    control_flow,  ///< `break`, `return` or `goto` out of the loop body
    /// code under a preprocessor condition on the compiler (`#ifdef __clang__`, `__GNUC__`,
    /// `__has_builtin`): the analysis (Clang) and the host compiler may see different code
    compiler_dependent,
    /// a plain container (std::vector, T*/T** table, Eigen matrix) the loop writes but Rotor
    /// cannot use as a parameter array: its extent cannot be bounded, it is used other than by
    /// subscript, or a clause it does not support names it
    plain_container,
  };
  Kind kind = Kind::unknown_call;
  std::string what; ///< What escaped, in words: the variable, the call, the expression.
  SourceLoc loc;
  std::string fix;          ///< What would make it sound, in words; empty: the kind's advice.
  bool replannable = false; ///< The loop without this escape is the loop with `fix` applied
                            ///< (a `break` removed, a scalar made a reduction), so planning
                            ///< it says how the fixed loop would run.
};

/// A container the loop reads that may be the memory of one it writes (two references Rotor
/// cannot tell apart, each a flat container): the runtime compares their memory when the loop
/// starts and runs it serially when they overlap.
struct MemoryCheck {
  std::string read;
  std::string written;
};

/// The whole loop.
struct LoopModel {
  SourceLoc loc; ///< Of the loop (the `for`).
  SpaceKind space = SpaceKind::dataset;
  std::vector<std::string>
      fields;           ///< Key fields in declaration order (i0, i1, ... for IndexSpace).
  bool ordered = false; ///< `ordered` clause.
  std::vector<std::string> buffered; ///< `buffered(...)` arrays.
  std::vector<ArrayDecl> arrays;     ///< Every array used in the loop, in order of first use.
  std::vector<Access> accesses;      ///< In source order.
  std::vector<Reduction> reductions;
  std::vector<Escape> escapes;
  std::vector<Private> privates; ///< Per-worker copies, in order of first use.
  std::vector<MemoryCheck> memory_checks;

  /// False when a `private(...)` variable carries state from one iteration to the next, so the
  /// result is no longer that of some serial order of the records.
  bool serial_equivalent() const;
  /// Index of `name` in fields, or -1.
  int field_index(const std::string& name) const;
  /// The declaration of array `name`, or nullptr.
  const ArrayDecl* array(const std::string& name) const;
  bool is_buffered(const std::string& array) const;
};

/// What makes `model` unusable, one line each (an access to an undeclared array, a subscript
/// count that differs from the rank, a key subscript naming no field, a buffered name that is no
/// array, ...); empty when the model is well-formed. plan_loop answers `serial` naming the first.
std::vector<std::string> validate_loop_model(const LoopModel& model);

} // namespace rotor::analysis
