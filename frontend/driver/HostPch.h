#pragma once
/// \file
/// A GCC precompiled header of `<rotor/rotor.h>` for the host compile. Rotor's headers (with
/// Eigen and the standard library) are about a second of every rewritten file's host compile;
/// a `rotor/rotor.h.gch` in an include directory searched before Rotor's own makes GCC load them
/// instead (docs/user/rotor-cc.md, "Compile time").
///
/// One PCH per host compiler and set of compile flags, built on first use into the cache
/// directory (the analysis PCH's, frontend/src/HeaderCache.h) as
///
///   DIR/gcc-<key>/rotor/rotor.h.gch   the PCH
///   DIR/gcc-<key>/rotor/rotor.h       a link to the real rotor.h (where GCC looks next to it)
///   DIR/gcc-<key>/inputs              every header it was made from, with size and mtime
///
/// and checked before every use: a changed input (a rebuilt Rotor, an upgraded Eigen) makes it
/// again. GCC itself refuses a PCH made with other options, or when the file defines macros
/// before the include that the header uses differently, and then reads the real header: the
/// PCH changes the time of a compile, never its result. Any problem (no cache directory, a
/// failed build, not GCC): the compile goes on without it.

#include <string>
#include <vector>

namespace rotor::driver {

/// Arguments to add to the host compile `compile` (compiler first, then its arguments, sources
/// included) so that it finds a valid PCH of rotor.h, built first when missing or stale; none when
/// it cannot be had. `rotor_header` is the real rotor/rotor.h the compile would include.
std::vector<std::string> host_pch_args(const std::string& cache_dir,
                                       const std::vector<std::string>& compile,
                                       const std::string& rotor_header, bool verbose);

/// After a host compile that used the PCH (`pch_args`, from host_pch_args) and wrote a
/// make-style dependency file (`-MD`/`-MMD`, with `-MF FILE` or next to `-o`): adds the headers
/// the PCH was made from to that file's first rule. GCC names neither the PCH nor the headers
/// inside it there, so without this a build tool would not recompile the object when one of
/// Rotor's headers changes. False when the file could not be rewritten.
bool add_pch_inputs_to_depfile(const std::vector<std::string>& compile,
                               const std::vector<std::string>& pch_args);

/// The rotor/rotor.h found in the `-I`/`-isystem` directories of `args` (first match), or empty.
std::string find_rotor_header(const std::vector<std::string>& args);

} // namespace rotor::driver
