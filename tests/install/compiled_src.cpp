// SPDX-License-Identifier: Apache-2.0
// The compiled mode with an installed headroom: the one file that includes src.hpp.
#include <headroom/src.hpp>
