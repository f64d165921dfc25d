// The keys splinter_test inserts and looks up, made by its own key function:
// test_key() of SplinterDB's tests/functional/test.h with the test config
// splinter_test --perf sets (test_config_set_defaults(perf, ...): TEST_RANDOM), for record
// indexes 0..N-1 in the order splinter_test inserts them. Prints one line per
// key: the index and the key's bytes in hex. Built and run by
// bench/splinterdb_keys.sh against the vendored source and library.
#include "functional/test.h"
#include "functional/splinter_test.h"

int
main(int argc, char *argv[])
{
   uint64 n        = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
   uint64 key_size = argc > 2 ? strtoull(argv[2], NULL, 10) : 24;
   test_config cfg;
   memset(&cfg, 0, sizeof(cfg));
   test_config_set_defaults(perf, &cfg); // what splinter_test --perf does (splinter_test.c)
   DECLARE_AUTO_KEY_BUFFER(keybuf, NULL);
   for (uint64 i = 0; i < n; i++) {
      key            k = test_key(&keybuf, cfg.key_type, i, 0, cfg.semiseq_freq, key_size, cfg.period);
      slice          s = key_slice(k);
      const uint8_t *b = slice_data(s);
      printf("%lu ", i);
      for (uint64 j = 0; j < slice_length(s); j++) {
         printf("%02x", b[j]);
      }
      printf("\n");
   }
   key_buffer_deinit(&keybuf);
   return 0;
}
