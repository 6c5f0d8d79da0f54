#pragma once
/// \file
/// Numbers a program reports next to the runtime's own loop metrics: test RMSE per epoch,
/// log-likelihood per iteration. With `--rotor-metrics=FILE` (or ROTOR_METRICS=FILE) rank 0
/// appends one JSON line per call to FILE (format: docs/design/observability.md); without it a
/// call only tests a flag. Nothing is printed either way.
///
/// \code
///   for (int epoch = 1; epoch <= epochs; ++epoch) {
///     ...                                        // the annotated training loop
///     rotor::report_metric("test_rmse", rmse(test), epoch);
///   }
/// \endcode

#include <cstdint>
#include <string_view>

namespace rotor {

/// Records `value` of metric `name` at `step` (an epoch or iteration number; a negative step
/// means "one more than this name's last step"). Call it on every rank (only rank 0 writes);
/// it does not communicate. NaN and infinities are written as null.
void report_metric(std::string_view name, double value, std::int64_t step = -1);

/// True when a metrics file is being written: lets a program skip computing a metric nobody
/// reads.
bool metrics_enabled();

} // namespace rotor
