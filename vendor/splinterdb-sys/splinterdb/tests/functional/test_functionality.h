// Copyright 2018-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

#include "allocator.h"
#include "cache.h"
#include "core.h"
#include "test.h"
#include "platform.h"

platform_status
test_functionality(allocator            *al,
                   io_handle            *io,
                   cache                *cc[],
                   system_config        *cfg,
                   test_workload_config *workload_cfg,
                   uint64                seed,
                   uint64                num_inserts,
                   uint64                correctness_check_frequency,
                   task_system          *ts,
                   platform_heap_id      hid,
                   uint8                 num_tables,
                   uint8                 num_caches,
                   uint32                max_async_inflight);
