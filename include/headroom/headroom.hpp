// SPDX-License-Identifier: Apache-2.0
// The umbrella header: includes every public header of headroom, and nothing else.
#pragma once

#include "error.hpp"
#include "version.hpp"
