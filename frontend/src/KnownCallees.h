#pragma once
/// \file
/// What the lowering knows about code it does not analyse: the known-pure functions of the
/// standard and C libraries, the classes that own their elements, and their element accessors.
/// Everything not named here that has no visible body blocks a parallel plan (deny by default;
/// the list is documented in docs/design/dependence-model.md, "Deny by default").

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Type.h>

namespace rotor::frontend {

/// A free function of the standard or C library known to touch nothing but its arguments
/// (`std::sqrt`, `std::exp`, `std::min`, `std::swap`, `memcpy`, ...). Functions with hidden
/// state (`rand`, `random`, `srand`, `strtok`, `lgamma`'s `signgam`, I/O) are not on the list.
bool is_known_pure_function(const clang::FunctionDecl* fd);

/// Declared in namespace Eigen (its arithmetic: effects only through arguments and object).
bool is_eigen_decl(const clang::Decl* d);

/// `std::function` and the like: calling it runs code the analysis cannot see.
bool is_type_erased_callable(clang::QualType t);

/// A closure, function pointer or reference, or type-erased callable: passed to a function Rotor
/// does not analyse, it would run unseen.
bool is_callable_argument(clang::QualType t);

/// Containers that own their elements (std::vector, std::array, std::deque, std::basic_string,
/// std::bitset, std::map, ..., Eigen::Matrix/Array): an element written is the object written.
bool owns_elements(clang::QualType t);

/// An Eigen expression or object that refers to a matrix's memory rather than holding its own
/// (a block, row, transpose, Map, Ref: any class of namespace Eigen that does not own its
/// elements).
bool is_eigen_view_type(clang::QualType t);

/// A non-const method that hands out an element or position without changing the object
/// (`operator[]` of a vector, `at`, `data`, `begin`, Eigen's `coeffRef`, `row`, ...). Not a map's
/// `operator[]` (it inserts).
bool is_element_accessor(const clang::CXXMethodDecl* md);

/// A non-const Eigen method that returns a view of its object's memory and changes nothing
/// itself (`transpose()`, `adjoint()`, `array()`, `matrix()`, `conjugate()`, `noalias()`): what is
/// done with the view decides (`V.row(j).transpose()` read, `W.row(u).transpose() = x` written).
bool is_eigen_view_method(const clang::CXXMethodDecl* md);

} // namespace rotor::frontend
