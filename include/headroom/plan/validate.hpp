// SPDX-License-Identifier: Apache-2.0
// Checking a planning problem field by field: invalid_argument naming the field.
#pragma once

#include "../detail/config.hpp"  // first: the C++20 check and the compiler macros
#if HEADROOM_HAS_CXX20

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "../detail/checks.hpp"
#include "../error.hpp"
#include "problem.hpp"

namespace headroom {
inline namespace v0 {
namespace plan {

namespace detail {

/// What a label may hold: a word (also no space or tab: the CSV header line separates its
/// fields by spaces) or any text without the CSV's separators.
enum class label_kind : unsigned char { word, text };

// A CSV field: not empty, no ',', '"' or line break; a word has no space or tab either.
HEADROOM_DECL void require_label(const char* name, std::string_view text, label_kind kind);

// `value` must lie in [low, high]: the range a planning problem's field is checked against up
// front (docs/planner.md, "What a problem accepts"), so nothing fails late, deep in a stage,
// on a value no accelerator or model has (1e300, a denormal).
template <class T>
void require_range(const char* name, T value, T low, T high) {
  if (value >= low && value <= high) return;  // NaN fails
  std::string requirement = "must lie in [";
  ::headroom::detail::append_value(requirement, low);
  requirement += ", ";
  ::headroom::detail::append_value(requirement, high);
  requirement += ']';
  ::headroom::detail::fail(name, value, requirement);
}

/// The year and a day the fleet day's clock and the controller's windows accept, in seconds.
inline constexpr double longest_span_seconds = 366.0 * 24 * 3600;

HEADROOM_DECL void validate_model(const model_shape& m);

HEADROOM_DECL void validate_accelerator(const accelerator_option& a);

HEADROOM_DECL void validate_axes_sizes(const grid& g);

HEADROOM_DECL void validate_grid(const grid& g, const model_shape& m);

HEADROOM_DECL void validate_objective(const objective& o);

HEADROOM_DECL void validate_traffic(const traffic_profile& t);

HEADROOM_DECL void validate_fleet(const fleet_options& f, const traffic_profile& t);

HEADROOM_DECL void validate_search(const search_options& s);

}  // namespace detail

/// Checks every field of a problem against its range (docs/planner.md, "What a problem
/// accepts"); throws invalid_argument naming it ("axes.max_batch[i]", "traffic.step", ...).
/// Every combination of the axes must be a valid replica (max_batched_tokens >= max_batch).
HEADROOM_DECL void validate(const problem& p);

}  // namespace plan
}  // namespace v0
}  // namespace headroom

#if !defined(HEADROOM_SEPARATE_COMPILATION)
#include "../impl/plan/validate.ipp"
#endif

#endif  // HEADROOM_HAS_CXX20
