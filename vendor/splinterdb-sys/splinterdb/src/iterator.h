// Copyright 2018-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

#pragma once

#include "splinterdb/splinterdb.h"
#include "data_internal.h"
#include "vector.h"

typedef struct iterator iterator;

typedef void (*iterator_curr_fn)(iterator *itor, key *curr_key, message *msg);
typedef bool32 (*iterator_bound_fn)(iterator *itor);
typedef platform_status (*iterator_step_fn)(iterator *itor);
typedef platform_status (*iterator_seek_fn)(iterator  *itor,
                                            comparison seek_type,
                                            key        seek_key);
typedef void (*iterator_print_fn)(iterator *itor);

typedef struct iterator_ops {
   /* Callers should not modify data pointed to by *key or *data */
   iterator_curr_fn  curr;
   iterator_bound_fn can_prev;
   iterator_bound_fn can_next;
   iterator_step_fn  next;
   iterator_step_fn  prev;
   iterator_seek_fn  seek;
   iterator_print_fn print;
} iterator_ops;

// To sub-class iterator, make an iterator your first field
struct iterator {
   const iterator_ops *ops;
};

typedef VECTOR(iterator *) iterator_vector;

static inline bool32
comparison_is_forward(comparison c)
{
   return c == greater_than || c == greater_than_or_equal;
}

static inline comparison
comparison_invert(comparison c)
{
   switch (c) {
      case less_than:
         return greater_than_or_equal;
      case less_than_or_equal:
         return greater_than;
      case greater_than_or_equal:
         return less_than;
      case greater_than:
         return less_than_or_equal;
      default:
         platform_assert(FALSE, "Invalid comparison %d", c);
   }
}

// It is safe to call curr whenever iterator_in_range() returns true
// otherwise the behavior of iterator_curr is undefined
static inline void
iterator_curr(iterator *itor, key *curr_key, message *msg)
{
   itor->ops->curr(itor, curr_key, msg);
}

static inline bool32
iterator_can_prev(iterator *itor)
{
   return itor->ops->can_prev(itor);
}

static inline bool32
iterator_can_next(iterator *itor)
{
   return itor->ops->can_next(itor);
}

static inline bool32
iterator_can_curr(iterator *itor)
{
   return itor->ops->can_next(itor) && itor->ops->can_prev(itor);
}

static inline platform_status
iterator_next(iterator *itor)
{
   return itor->ops->next(itor);
}

static inline platform_status
iterator_prev(iterator *itor)
{
   return itor->ops->prev(itor);
}

static inline platform_status
iterator_seek(iterator *itor, comparison seek_type, key seek_key)
{
   return itor->ops->seek(itor, seek_type, seek_key);
}

static inline void
iterator_print(iterator *itor)
{
   return itor->ops->print(itor);
}
