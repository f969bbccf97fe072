// selfsched core: the technique catalog and its mechanisms, pure C++.
#pragma once

#include "selfsched/core/adaptive_history.hpp"
#include "selfsched/core/plan.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/spec.hpp"
#include "selfsched/core/technique.hpp"
