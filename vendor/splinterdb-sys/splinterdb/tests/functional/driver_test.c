// Copyright 2018-2026 VMware, Inc.
// SPDX-License-Identifier: Apache-2.0

#include "platform.h"

#include "test.h"

#include "poison.h"

int
main(int argc, char *argv[])
{
   return test_dispatcher(argc, argv);
}
