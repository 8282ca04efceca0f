// SPDX-License-Identifier: Apache-2.0
// The deployment planner: for one model, one SLO and one day of traffic, which accelerator,
// tensor-parallel size and batch limits serve it at the lowest cost. Includes the headers of
// plan/ that stating, evaluating and deciding a grid needs:
//   plan/problem.hpp        what the caller states: model, grid, SLO, traffic, fleet, search
//   plan/configuration.hpp  the grid's configurations in canonical order, keys and seeds
//   plan/calibrations.hpp   the shipped calibrations, and where an option's parameters come from
//   plan/replica_model.hpp  the roofline over a replica's GPUs plus the all-reduces, KV budget
//   plan/lengths.hpp        the length mix's statistics and where the μ* search starts
//   plan/row.hpp            what is measured for one configuration, feasible or why not
//   plan/validate.hpp       checking a problem field by field
//   plan/evaluate.hpp       one configuration: fit, zero load, μ*, operating point, the day
//   plan/grid.hpp           a grid (or a shard of it) on many threads, bit-identical rows
//   plan/decide.hpp         the Pareto frontiers, the winner, why every other one lost
//   plan/search.hpp         evaluate a grid, then decide
// and not these, which a file that uses them includes itself (the umbrella includes them):
//   plan/model_card.hpp     a Hugging Face config.json read into a model_shape, with counts
//   plan/fingerprint.hpp    what identifies a grid across shards
//   plan/csv_write.hpp      rows as CSV blocks
//   plan/csv_read.hpp       CSV blocks read back
//   plan/merge.hpp          shards merged into whole grids
//   plan/calibrate.hpp      the step time's parameters fitted to measurements, with residuals
// Guide: docs/planner.md.
#pragma once

#include "detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include "plan/calibrations.hpp"
#include "plan/configuration.hpp"
#include "plan/decide.hpp"
#include "plan/evaluate.hpp"
#include "plan/grid.hpp"
#include "plan/lengths.hpp"
#include "plan/problem.hpp"
#include "plan/replica_model.hpp"
#include "plan/row.hpp"
#include "plan/search.hpp"
#include "plan/validate.hpp"

#endif  // HEADROOM_HAS_CXX20
