#pragma once
/// \file
/// The plan vocabulary, defined once: the plan kinds and array roles, and their names.
///
/// The names are what `rotor-deps`, `rotor-cc --explain` and the runtime's messages print, and
/// what rotor-cc writes into generated code as `::rotor::codegen::Kind::<name>` and
/// `::rotor::codegen::Role::<name>`. The runtime keeps its own enums in
/// rotor/runtime/Codegen.h (user code includes only runtime headers); runtime/src/Schedule.cpp
/// includes this header and static_asserts that every codegen enumerator has the value and
/// the name given here. Adding a plan kind: one row below, one enumerator in Codegen.h (the
/// static_asserts fail until both agree), then the switches the compiler warns about.
///
/// Dependency-free on purpose (only <array> and <cstddef>), so the runtime can include it.

#include <array>
#include <cstddef>

namespace rotor::analysis {

/// The plan kinds of contract §2, most parallel first.
enum class PlanKind { independent, one_d, rotation, wavefront, unimodular, data_parallel, serial };

/// What a parameter array does under a plan (contract §3 `arrays[].role`).
enum class ArrayRole {
  partitioned, ///< blocks stay with the worker that owns the matching records (by `field`)
  rotating,    ///< blocks (by `field`) move from worker to worker between steps
  replicated,  ///< only read: every worker reads any element
  buffered,    ///< the user allowed relaxed consistency: per-worker buffers, merged
  local,       ///< written only at elements no other iteration touches (no movement needed)
};

/// One enumerator and its name.
template <class Enum> struct Named {
  Enum value;
  const char* name;
};

/// Every plan kind with its name, in enum order.
inline constexpr std::array<Named<PlanKind>, 7> plan_kinds{{
    {PlanKind::independent, "independent"},
    {PlanKind::one_d, "one_d"},
    {PlanKind::rotation, "rotation"},
    {PlanKind::wavefront, "wavefront"},
    {PlanKind::unimodular, "unimodular"},
    {PlanKind::data_parallel, "data_parallel"},
    {PlanKind::serial, "serial"},
}};

/// Every array role with its name, in enum order.
inline constexpr std::array<Named<ArrayRole>, 5> array_roles{{
    {ArrayRole::partitioned, "partitioned"},
    {ArrayRole::rotating, "rotating"},
    {ArrayRole::replicated, "replicated"},
    {ArrayRole::buffered, "buffered"},
    {ArrayRole::local, "local"},
}};

namespace vocabulary_detail {

/// True when row i of `table` holds the enumerator of value i (so lookup by value is indexing).
template <class Enum, std::size_t N>
constexpr bool in_enum_order(const std::array<Named<Enum>, N>& table) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].value) != i) {
      return false;
    }
  }
  return true;
}

template <class Enum, std::size_t N>
constexpr const char* name_in(const std::array<Named<Enum>, N>& table, Enum value) {
  const auto i = static_cast<std::size_t>(value);
  return i < N ? table[i].name : "?";
}

} // namespace vocabulary_detail

static_assert(vocabulary_detail::in_enum_order(plan_kinds),
              "plan_kinds: one row per kind, in order");
static_assert(vocabulary_detail::in_enum_order(array_roles),
              "array_roles: one row per role, in order");
static_assert(plan_kinds.back().value == PlanKind::serial, "plan_kinds ends with the last kind");
static_assert(array_roles.back().value == ArrayRole::local, "array_roles ends with the last role");

/// "rotation", "data_parallel", ...
constexpr const char* to_string(PlanKind kind) {
  return vocabulary_detail::name_in(plan_kinds, kind);
}

/// "partitioned", "rotating", ...
constexpr const char* to_string(ArrayRole role) {
  return vocabulary_detail::name_in(array_roles, role);
}

} // namespace rotor::analysis
