#pragma once
#include "rotor/runtime/detail/OrderLog.h"
