#pragma once
/// \file
/// The API that rotor-cc emits calls to (namespace rotor::codegen). The frontend never links the
/// runtime; it writes C++ text that uses exactly these names. docs/design/codegen-contract.md is
/// the prose version, with a full before/after example; change both together.
///
/// \code
///   // before (user code)                        // after (rotor-cc output)
///   #pragma rotor parallel_for                   ::rotor::codegen::run_loop(
///   for (const Rating& r : ratings) {              ::rotor::codegen::LoopSpec{...},
///     auto w = W.row(r.user);                      ratings,
///     ...                                          ::rotor::codegen::keys(&Rating::user,
///     &Rating::item), loss += e * e;                               std::tie(W, H), std::tie(loss),
///   }                                              [&](const Rating& r, auto& W, auto& H, auto&
///   loss) {
///                                                #line 43 "sgd_mf.cpp"
///                                                  auto w = W.row(r.user);
///                                                  ...
///                                                });
/// \endcode

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/IndexSpace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <vector>

namespace rotor::codegen {

/// Mirrors rotor::analysis::PlanKind (the frontend translates one to the other).
enum class Kind { independent, one_d, rotation, wavefront, unimodular, data_parallel, serial };
/// Mirrors rotor::analysis::ArrayRole.
enum class Role { partitioned, rotating, replicated, buffered, local };
enum class Device { cpu, gpu };

/// What one array dimension of a block touches: the values of key `key` (an index into the
/// loop's key list) shifted by [lo, hi]; key == -1: the whole dimension.
struct Dim {
  int key = -1;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

/// One bound array, in the order of the `arrays` tuple passed to run_loop.
struct ArraySpec {
  const char* name = "";
  Role role = Role::replicated;
  int key = -1; ///< partitioned / rotating / local: the key whose blocks it follows
  bool written = false;
  std::vector<Dim> dims; ///< one per dimension (missing trailing dims: whole)
};

/// Everything the plan says about one loop; the frontend emits it as an aggregate initializer.
struct LoopSpec {
  const char* file = "";
  int line = 0;
  Kind kind = Kind::serial;
  std::vector<int> fields;                       ///< partition keys, plan order (indexes into keys)
  std::vector<std::vector<std::int64_t>> matrix; ///< unimodular: skew over `fields`
  Kind base = Kind::serial;                      ///< unimodular: the plan on the skewed keys
  bool ordered = false;
  bool writes_records = false; ///< the body writes its record (LDA's topic)
  Device device = Device::cpu;
  std::vector<ArraySpec> arrays;
  std::vector<const char*> reductions; ///< names, in the order of the reductions tuple
  const char* reason = "";             ///< serial: why (for --rotor-verbose)
  /// The body may throw (false only when rotor-cc proved it cannot): a step of a parallel plan
  /// is then undone when one of its cells throws, so the exception leaves the state of the last
  /// completed step (docs/design/codegen-contract.md, "Exceptions").
  bool may_throw = true;
  /// Arrays that are views of plain containers (ContainerView.h): the body writes the container
  /// itself, not the array object it is passed, so --rotor-validate cannot replay it on a copy.
  std::vector<const char*> views = {};
  /// The loop's `private(...)` variables (Private.h): each worker carries its own state, so the
  /// loop promises no serial order and --rotor-validate skips it.
  std::vector<const char*> private_state = {};
};

/// The bytes a container's elements occupy, `data()` to `data() + size()` (a std::vector,
/// std::array or Eigen matrix).
struct Memory {
  const char* begin = nullptr;
  const char* end = nullptr;
};
template <class Container> Memory memory_of(const Container& c) {
  const auto* p = reinterpret_cast<const char*>(c.data());
  return {p, p + static_cast<std::size_t>(c.size()) * sizeof(*c.data())};
}

/// `spec`, or a serial plan when the memory of a container the loop reads overlaps that of a
/// container it writes (`{read, written}` pairs: references rotor-cc could not tell apart,
/// LoopModel::memory_checks). Every rank computes the same answer from its own objects.
inline LoopSpec unless_shared(LoopSpec spec, std::initializer_list<std::array<Memory, 2>> pairs) {
  for (const auto& [read, written] : pairs) {
    if (read.begin < written.end && written.begin < read.end) {
      spec.kind = Kind::serial;
      spec.reason = "a container the loop reads is the memory of one it writes (checked when "
                    "the loop started)";
      break;
    }
  }
  return spec;
}

/// The key fields of a record, in declaration order (the analysis' LoopModel::fields).
template <class Record, class... F> struct KeyList {
  std::tuple<F Record::*...> members;
  static constexpr int size = sizeof...(F);
  /// Writes the keys of `r` into `out[0..size)`.
  void extract(const Record& r, std::int64_t* out) const {
    std::apply(
        [&](auto... m) {
          int i = 0;
          ((out[i++] = static_cast<std::int64_t>(r.*m)), ...);
        },
        members);
  }
};
template <class Record, class... F> KeyList<Record, F...> keys(F Record::*... members) {
  return KeyList<Record, F...>{std::tuple<F Record::*...>(members...)};
}

/// The keys of an IndexSpace<N>: i0, i1, ...
template <int N> struct IndexKeys {
  static constexpr int size = N;
  void extract(const Index<N>& p, std::int64_t* out) const {
    for (int d = 0; d < N; ++d) {
      out[d] = p.v[d];
    }
  }
};
template <int N> IndexKeys<N> index_keys() {
  return {};
}

/// The positions (in the `arrays` tuple) of the loop's buffered arrays when the body uses every
/// one of them only through subscripts, rows and shape queries (`w[i]`, `w(i, j)`, `w.row(i)`,
/// `w.size()`): the runtime may then hand the body a rotor::detail::SparseBuffer in place of a
/// dense DistArray copy (docs/design/buffered.md, "Worker buffers"). rotor-cc passes it after the
/// reductions; without it the workers always get dense copies.
template <std::size_t... I> struct SparseCapable {};

/// Runs the loop under `spec` on this process's workers (all ranks call it, like a collective).
/// `space` is the Dataset or IndexSpace; `arrays` are the DistArrays the body uses (each bound
/// to the body parameter of the same position); `reductions` are the outside scalars (or
/// rotor::Accumulator objects) the body changes only by += / -=. The body is called once per
/// record (or point) as body(record, arrays..., reductions...); each reduction parameter is a
/// worker-private partial starting at the identity, combined into the original afterwards in a
/// fixed order. Defined in rotor/runtime/RunLoop.h (included by rotor/rotor.h).
template <class Space, class Keys, class... Arrays, class... Reductions, class Body>
void run_loop(const LoopSpec& spec, Space& space, const Keys& keys, std::tuple<Arrays&...> arrays,
              std::tuple<Reductions&...> reductions, Body&& body);
template <class Space, class Keys, class... Arrays, class... Reductions, std::size_t... Sparse,
          class Body>
void run_loop(const LoopSpec& spec, Space& space, const Keys& keys, std::tuple<Arrays&...> arrays,
              std::tuple<Reductions&...> reductions, SparseCapable<Sparse...> sparse, Body&& body);

/// A loop over a std::vector or an integer range whose plan is serial runs as the user wrote it
/// (its bound and size are read as the original reads them); rotor-cc puts this call before it so
/// that the runtime starts there as it would at a parallel loop (non-root ranks' standard output
/// and file writes are handled from then on, docs/user/running.md).
void serial_loop_as_written();

/// rotor-cc inserts `::rotor::codegen::MainSession rotor_main_session(argc, argv);` as the first
/// statement of `main` when the file it rewrites defines `main` and constructs no rotor::Session
/// (without argc/argv: `rotor_main_session;`, settings from ROTOR_* variables only). Unless a
/// Session already runs, it starts one as `rotor::Session(argc, argv)` would (the `--rotor-*`
/// flags leave argv before the program parses it; a bad one ends the program with its message,
/// exit status 2) and ends it when main returns (or at exit()). A rotor::Session the program
/// constructs later takes this one over. `main(int argc, const char* argv[])` gets the same: the
/// session only reorders argv's pointers, never writes the strings.
class MainSession {
public:
  MainSession(int& argc, char**& argv);
  MainSession(int& argc, const char**& argv) : MainSession(argc, const_cast<char**&>(argv)) {}
  MainSession();
  ~MainSession();
  MainSession(const MainSession&) = delete;
  MainSession& operator=(const MainSession&) = delete;

private:
  bool owns_ = false;
};

} // namespace rotor::codegen
