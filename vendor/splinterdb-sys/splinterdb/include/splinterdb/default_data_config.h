// Copyright 2018-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

// A default data_config suitable for simple key/value applications
// using a lexicographical sort-order (memcmp)
//
// This data_config does not support blind mutation operations, except
// plain overwrites of values.

#pragma once

#include "data.h"

#ifdef __cplusplus
extern "C" {
#endif

void
default_data_config_init(data_config *out_cfg // OUT
);

#ifdef __cplusplus
}
#endif
