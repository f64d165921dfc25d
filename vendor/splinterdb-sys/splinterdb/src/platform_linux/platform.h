// Copyright 2018-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

#pragma once

#define PLATFORM_LINUX

#include "splinterdb/platform_linux/public_platform.h"
#include "platform_assert.h"
#include "platform_util.h"
#include "platform_machine.h"
#include "platform_status.h"
#include "platform_log.h"
#include "platform_heap.h"
#include "platform_io.h"
#include "platform_sort.h"
#include "platform_string.h"
#include "platform_io.h"
#include "platform_buffer.h"
#include "platform_condvar.h"
#include "platform_mutex.h"
#include "platform_threads.h"
#include "platform_time.h"
#include "platform_util.h"
#include "platform_log.h"
#include "platform_status.h"
#include "platform_typed_alloc.h"
#include "platform_sleep.h"
#include "platform_hash.h"
#include "platform_spinlock.h"