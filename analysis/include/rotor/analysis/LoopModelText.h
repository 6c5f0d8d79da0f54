#pragma once
/// \file
/// A small text format for loop models, so that tests, goldens and `rotor-deps` can state a loop
/// without C++ or Clang. One statement per line; `#` starts a comment.
///
/// \code
///   # SGD matrix factorization
///   loop sgd_mf.cpp:41             # where the loop is (optional)
///   dataset user item              # or: index_space 2   (fields i0, i1)
///   ordered                        # optional
///   buffered topic_total           # optional, names arrays
///   array W 2 float                # name, rank, element type (optional)
///   write W[user][:] @sgd_mf.cpp:46 "w += ..."   # read|write, subscripts, location, text
///   reduction loss + @sgd_mf.cpp:45
///   escape unknown_call log_progress() @sgd_mf.cpp:50
/// \endcode
///
/// Subscripts: `user`, `user+1`, `i0-1`, `user+shift` (a key field plus an offset: a number or
/// a named loop-invariant), `3`, `c`, `c+1` (constants), `:` (the whole dimension), `?` or
/// `?TEXT` (unknown, e.g. `?perm[user]`). An access without `@` is located at its line in the
/// model file. Escape kinds: outside_write, pointer_taken, unknown_call, control_flow,
/// compiler_dependent, plain_container.

#include "rotor/analysis/LoopModel.h"

#include <stdexcept>
#include <string>

namespace rotor::analysis {

/// A model file that cannot be read; what() is "FILE:LINE: error: ..." (LINE omitted when the
/// whole file is at fault).
class LoopModelError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Parses a model from `text`; `file` names it in errors and default locations.
/// Throws LoopModelError on bad input.
LoopModel parse_loop_model(const std::string& text, const std::string& file);

/// Reads and parses the file at `path`. Throws LoopModelError (also when it cannot be opened).
LoopModel read_loop_model_file(const std::string& path);

/// The model in the text format; parse_loop_model(loop_model_to_text(m), f) gives back m's
/// fields, arrays, accesses, reductions and escapes (subscript texts are not kept).
std::string loop_model_to_text(const LoopModel& model);

} // namespace rotor::analysis
