#!/usr/bin/env python3
"""What a RocksDB query trace holds, as rumbench's mixgraph step records it:
operations by type, accesses per key range, the puts' value sizes and the
operations per second. The trace is one written by DB::StartTrace (db_bench
--trace_file): records of fixed64 timestamp (us), a type byte, a fixed32
payload length and the payload (trace_replay/trace_replay.cc).

Usage: rocksdb_trace_stats.py TRACE NUM RANGES KEYS_PER_RANGE   (prints JSON)
Keys are db_bench's: a big-endian u64 key number, then padding.
"""
import json
import struct
import sys

GET, WRITE, SEEK, SEEK_FOR_PREV, BEGIN, END, MULTIGET = 4, 3, 5, 6, 1, 2, 13


def varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def slice_at(buf, pos):
    n, pos = varint(buf, pos)
    return buf[pos:pos + n], pos + n


def batch_puts(rep):
    """(key, value length) of each put in a WriteBatch's rep."""
    pos = 12  # sequence (8) and count (4)
    while pos < len(rep):
        tag = rep[pos]
        pos += 1
        if tag in (0x5, 0x4, 0x8):  # column family variants: the family first
            _, pos = varint(rep, pos)
            tag = {0x5: 0x1, 0x4: 0x0, 0x8: 0x7}[tag]
        if tag == 0x1:  # kTypeValue
            key, pos = slice_at(rep, pos)
            value, pos = slice_at(rep, pos)
            yield key, len(value)
        elif tag in (0x0, 0x7):  # deletion, single deletion
            key, pos = slice_at(rep, pos)
        else:
            raise SystemExit(f"write batch record type {tag:#x} not read here")


def main():
    path, num, ranges, per_range = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    data = open(path, "rb").read()
    pos = 0
    counts = {"get": 0, "put": 0, "seek": 0}
    range_accesses = [0] * ranges
    value_sizes = {}
    per_second = {}
    first_ts = None

    def access(key):
        k = struct.unpack(">Q", key[:8])[0]
        if k < num:
            range_accesses[min(k // per_range, ranges - 1)] += 1

    while pos + 13 <= len(data):
        ts, kind, length = struct.unpack_from("<QBI", data, pos)
        payload = data[pos + 13:pos + 13 + length]
        pos += 13 + length
        if kind in (BEGIN, END):
            continue
        if first_ts is None:
            first_ts = ts
        second = (ts - first_ts) // 1_000_000
        if kind == GET:
            # payload map (fixed64), column family (fixed32), key.
            key, _ = slice_at(payload, 12)
            counts["get"] += 1
            access(key)
        elif kind == SEEK:
            key, _ = slice_at(payload, 12)
            counts["seek"] += 1
            access(key)
        elif kind == WRITE:
            rep, _ = slice_at(payload, 8)
            for key, vlen in batch_puts(rep):
                counts["put"] += 1
                access(key)
                value_sizes[vlen] = value_sizes.get(vlen, 0) + 1
        else:
            continue
        per_second[second] = per_second.get(second, 0) + 1
    puts = sum(value_sizes.values())
    json.dump({
        "ops": counts,
        "key_range_accesses": range_accesses,
        "value_size_mean": sum(v * n for v, n in value_sizes.items()) / puts if puts else None,
        "value_sizes": sorted(value_sizes.items()),
        "ops_per_second": [per_second.get(s, 0) for s in range(max(per_second) + 1)] if per_second else [],
    }, sys.stdout)


if __name__ == "__main__":
    main()
