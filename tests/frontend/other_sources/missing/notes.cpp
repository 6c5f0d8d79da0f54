#include "helper.h"

// Mentions nudge without defining it: parsed, no definition found.
int nudge_count = 0;
