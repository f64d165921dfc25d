// A process kill without a power cut: insert N records into a new SplinterDB
// database, SIGKILL ourselves, then (a second run, "read") open it again and
// count the records found and wrong. Built and run by bench/splinterdb_kill.sh
// against the vendored library with driver_test's flags.
// Usage: splinterdb_kill kill|close|read N CACHE_MIB FILE
//   kill: create, insert records 0..N-1 (16-byte big-endian keys, 100-byte
//   values holding the index), SIGKILL; close: the same, then a clean close
//   (the control); read: open and check records 0..N-1.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include "splinterdb/splinterdb.h"
#include "splinterdb/default_data_config.h"
int main(int argc, char **argv) {
  int writing = strcmp(argv[1], "read") != 0, kill = strcmp(argv[1], "kill") == 0; uint64 n = strtoull(argv[2],0,10);
  uint64 cache = (argc > 3 ? strtoull(argv[3],0,10) : 1024) << 20;
  data_config dc; default_data_config_init(&dc);
  splinterdb_config c; memset(&c,0,sizeof c);
  c.filename=argv[4]; c.cache_size=cache; c.disk_size=4ULL<<30; c.data_cfg=&dc;
  splinterdb *kvs; int rc = writing ? splinterdb_create(&c,&kvs) : splinterdb_open(&c,&kvs);
  if (rc) { printf("%s rc %d\n", writing ? "create" : "open", rc); return 1; }
  char key[16] = {0}, val[100];
  if (writing) {
    for (uint64 i=0;i<n;i++) { uint64 be = __builtin_bswap64(i); memcpy(key,&be,8); memset(val, 'a' + i % 26, 100); memcpy(val,&i,8);
      splinterdb_insert(kvs,(slice){16,key},(slice){100,val},NULL); }
    printf("inserted %lu, %s\n", n, kill ? "killing" : "closing"); fflush(stdout);
    if (kill) raise(SIGKILL);
    splinterdb_close(&kvs); return 0;
  }
  splinterdb_lookup_result r; splinterdb_lookup_result_init(kvs,&r,0,0,NULL);
  uint64 found=0, wrong=0, last=0;
  for (uint64 i=0;i<n;i++) { uint64 be = __builtin_bswap64(i); memcpy(key,&be,8);
    splinterdb_lookup(kvs,(slice){16,key},&r);
    if (splinterdb_lookup_found(&r)) { slice v; splinterdb_lookup_result_value(&r,&v); uint64 got; memcpy(&got, v.data, 8); found++; last = i; if (got != i || v.length != 100) wrong++; } }
  printf("found %lu of %lu (last found %lu), wrong %lu\n", found, n, last, wrong);
  splinterdb_lookup_result_deinit(&r); splinterdb_close(&kvs); return 0; }
