#pragma once
/// \file
/// The one header a Rotor program includes. It declares everything a serial program annotated
/// with `#pragma rotor parallel_for` uses (Session, DistArray, Dataset, IndexSpace, loaders,
/// Accumulator, buffered_apply / buffered_mean, report_metric) and what rotor-cc's rewritten loops
/// call (rotor::codegen::run_loop). It pulls in no MPI, TBB or HDF5 header, so the serial build
/// needs only Eigen and Rotor's own headers.

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/IndexSpace.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/Partition.h"
#include "rotor/runtime/Accumulator.h"
#include "rotor/runtime/Buffered.h"
#include "rotor/runtime/Codegen.h"
#include "rotor/runtime/ContainerView.h"
#include "rotor/runtime/DeviceLoop.h"
#include "rotor/runtime/Inspector.h"
#include "rotor/runtime/Metrics.h"
#include "rotor/runtime/PointerTable.h"
#include "rotor/runtime/Private.h"
#include "rotor/runtime/RunLoop.h"
#include "rotor/runtime/Session.h"
