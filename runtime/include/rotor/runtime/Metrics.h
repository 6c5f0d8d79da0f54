#pragma once
/// \file
/// Numbers a program reports for `--rotor-metrics=FILE` (docs/design/observability.md), e.g. the
/// test RMSE after each epoch. Every rank may call it; rank 0 writes. Without the flag it does
/// nothing, in the serial build and the Rotor build alike.
///
/// \code
///   rotor::report_metric("test_rmse", rmse, epoch + 1);
/// \endcode

#include <cstdint>
#include <string>

namespace rotor {

void report_metric(const std::string& name, double value, std::int64_t step);

} // namespace rotor
