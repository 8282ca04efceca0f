#include <headroom/sim/step_time.hpp>
