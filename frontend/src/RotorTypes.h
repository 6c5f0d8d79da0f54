#pragma once
/// \file
/// Recognising Rotor's own types in the Clang AST (by their qualified template names).

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclTemplate.h>

#include <string>

namespace rotor::frontend {

/// The specialization of `rotor::<name>` that `t` (minus references) is, or nullptr.
const clang::ClassTemplateSpecializationDecl* rotor_specialization(clang::QualType t,
                                                                   const char* name);

bool is_dist_array(clang::QualType t);
int dist_array_rank(clang::QualType t);
std::string dist_array_element(clang::QualType t);
/// A `std::vector<T>` or `std::array<T, N>` whose elements the runtime can hold in a DistArray
/// (T float, double or a 32- or 64-bit integer): T as written; otherwise "". Such a container,
/// used as rows `v[key * stride + j]`, is a parameter array (docs/design/containers.md).
std::string row_vector_element(const clang::ASTContext& ctx, clang::QualType t);
/// T as written for a `std::vector<std::vector<T>>` (a table of rows; T as for
/// row_vector_element); otherwise "".
std::string table_element(const clang::ASTContext& ctx, clang::QualType t);
/// A raw pointer table (docs/design/containers.md, "Pointer tables"): `T*` (depth 1, rows of a
/// flat array) or `T**` (depth 2, one allocation per row), T as for row_vector_element (not
/// const): T as written; otherwise "" (depth 0).
std::string pointer_table_element(const clang::ASTContext& ctx, clang::QualType t, int& depth);
/// The element type of a `std::vector` (through references), or a null type.
clang::QualType std_vector_element(clang::QualType t);
/// "std::vector" or "std::array" for a type row_vector_element accepts.
std::string row_container_name(clang::QualType t);
/// An `Eigen::Matrix<T, ...>` with T as for row_vector_element: 'R' (row-major matrix), 'C'
/// (column-major matrix) or 'V' (a vector: one compile-time dimension is 1), and T in
/// `element`; otherwise 0.
char eigen_layout(const clang::ASTContext& ctx, clang::QualType t, std::string& element);
/// rotor::Dataset<R>: R's declaration; otherwise nullptr.
const clang::RecordDecl* dataset_record(clang::QualType t);
/// A `std::pair<A, B>` whose A and B are each arithmetic, a plain record or such a pair
/// (`std::pair<std::pair<int, int>, double>`).
bool is_plain_pair(const clang::ASTContext& ctx, clang::QualType t);
/// A `std::vector<R>` whose R is a plain record (a trivially copyable aggregate struct, as a
/// Dataset holds) or a plain pair (is_plain_pair): R's declaration; otherwise nullptr. A loop over
/// it runs through the inspector (rotor/runtime/Inspector.h).
const clang::RecordDecl* vector_record(const clang::ASTContext& ctx, clang::QualType t);
/// rotor::IndexSpace<N>: N; otherwise 0.
int index_space_rank(clang::QualType t);
bool is_accumulator(clang::QualType t);
/// The operation of a rotor::Accumulator<T, Op> ("sum" when it cannot be told).
std::string accumulator_op(clang::QualType t);
/// rotor::Accumulator<T, Op>: T; otherwise a null type.
clang::QualType accumulator_value_type(clang::QualType t);
/// True for declarations inside namespace rotor in Rotor's own headers (`.../include/rotor/...`).
bool is_rotor_decl(const clang::Decl* d);
/// How to name `record` at the loop: fully qualified, or plain for a function-local type.
std::string record_type_name(const clang::ASTContext& ctx, const clang::RecordDecl* record);

} // namespace rotor::frontend
